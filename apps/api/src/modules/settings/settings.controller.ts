import { Body, Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import {
  ApiBadGatewayResponse,
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { UserPrincipal } from '../../common/auth/principal';
import { CurrentUser, RequirePermission } from '../../common/auth/route-access';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { MailSettingsResponseDto, MailTestDto, UpdateMailSettingsDto } from './settings.dto';
import { SettingsService } from './settings.service';

@ApiTags('settings')
@Controller('settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get('alert-thresholds')
  @RequirePermission('settings:view')
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'integer' }, example: [30, 14, 7, 1] }, description: 'Day counts, descending.' })
  getAlertThresholds(): Promise<number[]> {
    return this.settings.alertThresholds();
  }

  @Put('alert-thresholds')
  @RequirePermission('settings:edit')
  @ApiBody({
    schema: { type: 'array', minItems: 1, maxItems: 20, uniqueItems: true, items: { type: 'integer', minimum: 1, maximum: 3650 } },
  })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'integer' } }, description: 'Stored, descending.' })
  replaceAlertThresholds(@Body() body: unknown, @Actor() actor: ActorContext): Promise<number[]> {
    return this.settings.replaceAlertThresholds(body, actor);
  }

  @Get('mail')
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: MailSettingsResponseDto })
  getMailSettings(): Promise<MailSettingsResponseDto> {
    return this.settings.mailSettings();
  }

  @Put('mail')
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: MailSettingsResponseDto })
  replaceMailSettings(@Body() dto: UpdateMailSettingsDto, @Actor() actor: ActorContext): Promise<MailSettingsResponseDto> {
    return this.settings.replaceMailSettings(dto, actor);
  }

  @Post('mail/test')
  @HttpCode(204)
  @RequirePermission('settings:edit')
  @ApiNoContentResponse({ description: 'The SMTP server accepted the test message.' })
  @ApiUnprocessableEntityResponse({ description: 'Mail is disabled or not configured.' })
  @ApiBadGatewayResponse({ description: 'The SMTP round trip failed; the body says how.' })
  async sendTestMail(@Body() dto: MailTestDto, @CurrentUser() caller: UserPrincipal): Promise<void> {
    await this.settings.sendTestMail(dto.to ?? caller.email);
  }
}
