import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { TemplateDto, UpdateTemplateDto } from './templates.dto';
import { TemplatesService } from './templates.service';

@ApiTags('settings')
@Controller('notification-templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: [TemplateDto] })
  listTemplates(): Promise<TemplateDto[]> {
    return this.templates.listTemplates();
  }

  @Get(':eventType/:channel')
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: TemplateDto })
  getTemplate(@Param('eventType') eventType: string, @Param('channel') channel: string): Promise<TemplateDto> {
    return this.templates.getTemplate(eventType, channel);
  }

  @Put(':eventType/:channel')
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: TemplateDto })
  saveTemplate(
    @Param('eventType') eventType: string,
    @Param('channel') channel: string,
    @Body() dto: UpdateTemplateDto,
    @Actor() actor: ActorContext,
  ): Promise<TemplateDto> {
    return this.templates.saveTemplate(eventType, channel, dto, actor);
  }

  @Delete(':eventType/:channel')
  @HttpCode(204)
  @RequirePermission('settings:edit')
  @ApiNoContentResponse({ description: 'The default applies again (also when there was no override).' })
  async deleteTemplate(
    @Param('eventType') eventType: string,
    @Param('channel') channel: string,
    @Actor() actor: ActorContext,
  ): Promise<void> {
    await this.templates.deleteTemplate(eventType, channel, actor);
  }
}
