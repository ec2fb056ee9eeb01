import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { TemplateDto, TemplatePreviewDto, UpdateTemplateDto } from './templates.dto';
import { TemplatesService } from './templates.service';

@ApiTags('settings')
@Controller('notification-templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @ApiOperation({
    summary: 'List notification templates',
    description:
      'Needs `settings:view`. ' +
      'One row per event type and channel (`email`, `slack`, `teams`, `ntfy`, `pagerduty`; webhook bodies are data, not templates): ' +
      'the subject and body in effect, whether they are a custom override, and the variables they may use. ' +
      "The chat channels' defaults are the e-mail default's subject and text.",
  })
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: [TemplateDto] })
  listTemplates(): Promise<TemplateDto[]> {
    return this.templates.listTemplates();
  }

  @Get(':eventType/:channel')
  @ApiOperation({
    summary: 'Get a notification template',
    description:
      'Needs `settings:view`. The template in effect for the event type and channel: the saved override, else the built-in default. ' +
      '404 for an unknown event type or channel.',
  })
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: TemplateDto })
  getTemplate(@Param('eventType') eventType: string, @Param('channel') channel: string): Promise<TemplateDto> {
    return this.templates.getTemplate(eventType, channel);
  }

  @Put(':eventType/:channel')
  @ApiOperation({
    summary: 'Save a notification template',
    description:
      'Needs `settings:edit`. Stores an override of the subject and body. ' +
      'Syntax errors and unknown variables are 400, one line per problem; 404 for an unknown event type or channel.',
  })
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

  @Post(':eventType/:channel/preview')
  @ApiOperation({
    summary: 'Preview a notification template',
    description:
      'Needs `settings:view`. Renders the given subject and body (not saved) with sample values, by the same engine the alerts use: ' +
      'the subject, the HTML part (null for a plain-text body) and the text part an e-mail would carry. ' +
      'Refuses what saving refuses: syntax errors and unknown variables are 400, one line per problem; 404 for an unknown event ' +
      'type or channel.',
  })
  @HttpCode(200)
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: TemplatePreviewDto })
  previewTemplate(
    @Param('eventType') eventType: string,
    @Param('channel') channel: string,
    @Body() dto: UpdateTemplateDto,
  ): TemplatePreviewDto {
    return this.templates.previewTemplate(eventType, channel, dto);
  }

  @Delete(':eventType/:channel')
  @ApiOperation({
    summary: "Restore a notification template's default",
    description:
      'Needs `settings:edit`. Removes the override, so the built-in default applies again. Idempotent: ' +
      '204 whether or not an override existed; 404 for an unknown event type or channel.',
  })
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
