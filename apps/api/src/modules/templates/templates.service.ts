import { BadRequestException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import {
  defaultTemplate,
  EVENT_TYPES,
  type EventType,
  formatTemplateProblem,
  isTemplateChannel,
  renderDefaultAsPlainText,
  type RenderedMessage,
  renderTemplate,
  TEMPLATE_CHANNELS,
  TEMPLATE_VARIABLES,
  type TemplateChannel,
  type TemplateValues,
  validateTemplate,
  type ChatMessage,
  ntfyMessage,
  pagerDutyPayload,
  slackText,
  teamsCard,
  urgencyOf,
} from '@certkeeper/domain/templates';
import { type ActorContext, AuditService } from '../audit/audit.service';
import type { ChatPreviewDto, TemplateDto, TemplatePreviewDto } from './templates.dto';
import { TemplatesRepository } from './templates.repository';

/** Renders an event type's message on one channel with the templates read beforehand. */
export type Renderer = (eventType: EventType, values: TemplateValues) => RenderedMessage;

// Enough to fix a template; a body full of mistakes does not need 14,000 lines back.
const MAX_PROBLEM_LINES = 20;

@Injectable()
export class TemplatesService {
  private readonly logger = new Logger('Templates');

  constructor(
    private readonly templates: TemplatesRepository,
    private readonly audit: AuditService,
  ) {}

  async listTemplates(): Promise<TemplateDto[]> {
    const overrides = await this.templates.listOverrides();
    return EVENT_TYPES.flatMap((eventType) =>
      TEMPLATE_CHANNELS.map((channel) =>
        toDto(eventType, channel, overrides.find((o) => o.eventType === eventType && o.channel === channel) ?? null),
      ),
    );
  }

  async getTemplate(eventType: string, channel: string): Promise<TemplateDto> {
    const [event, chan] = requireKnown(eventType, channel);
    return toDto(event, chan, await this.templates.findOverride(event, chan));
  }

  /** Refuses syntax errors and unknown variables with 400, one line per problem. */
  async saveTemplate(
    eventType: string,
    channel: string,
    template: { subject: string; body: string },
    actor: ActorContext,
  ): Promise<TemplateDto> {
    const [event, chan] = requireKnown(eventType, channel);
    requireValid(event, template);
    await this.templates.saveOverride(event, chan, template.subject, template.body);
    await this.audit.record(actor, { action: 'template:update', targetType: 'template', targetId: `${event}/${chan}` });
    return this.getTemplate(event, chan);
  }

  /**
   * The message a template would produce, rendered by the same engine as the alerts with sample
   * values, so an author sees the result before saving. Refuses what saving refuses, alike.
   */
  previewTemplate(eventType: string, channel: string, template: { subject: string; body: string }): TemplatePreviewDto {
    const [event, chan] = requireKnown(eventType, channel);
    requireValid(event, template);
    const values = SAMPLE_VALUES[event];
    const rendered = renderTemplate(template, values);
    return { ...rendered, chat: chan === 'email' ? null : chatPreview(chan, { eventType: event, values }, rendered) };
  }

  /** Restores the default; 204 whether or not an override existed. */
  async deleteTemplate(eventType: string, channel: string, actor: ActorContext): Promise<void> {
    const [event, chan] = requireKnown(eventType, channel);
    await this.templates.deleteOverride(event, chan);
    await this.audit.record(actor, { action: 'template:reset', targetType: 'template', targetId: `${event}/${chan}` });
  }

  /**
   * How a run of the alert job renders the messages it sends on a channel: the channel's saved
   * templates read once, so its many messages cost no query each. A saved template that fails to
   * render (it validated when saved, but the engine may have changed since) falls back to a
   * plain-text copy of the default, and is logged.
   */
  async renderer(channel: TemplateChannel = 'email'): Promise<Renderer> {
    const overrides = new Map((await this.templates.overridesOf(channel)).map((override) => [override.eventType, override]));
    return (eventType, values) => this.renderWith(overrides.get(eventType) ?? null, eventType, values, channel);
  }

  private renderWith(
    override: { subject: string; body: string } | null,
    eventType: EventType,
    values: TemplateValues,
    channel: TemplateChannel,
  ): RenderedMessage {
    try {
      return renderTemplate(override ?? defaultTemplate(eventType, channel), values);
    } catch (error) {
      this.logger.error(
        `The ${eventType}/${channel} template failed to render; sending the plain-text default: ${error instanceof Error ? error.message : String(error)}`,
      );
      return renderDefaultAsPlainText(eventType, values);
    }
  }
}

function requireKnown(eventType: string, channel: string): [EventType, TemplateChannel] {
  if (!EVENT_TYPES.includes(eventType as EventType))
    throw new NotFoundException(`Unknown event type ${eventType}; known: ${EVENT_TYPES.join(', ')}.`);
  if (!isTemplateChannel(channel)) throw new NotFoundException(`Unknown channel ${channel}; known: ${TEMPLATE_CHANNELS.join(', ')}.`);
  return [eventType as EventType, channel];
}

/** What a chat channel shows of a rendered template, built by the functions its sender posts with. */
function chatPreview(
  channel: Exclude<TemplateChannel, 'email'>,
  event: { eventType: EventType; values: TemplateValues },
  rendered: RenderedMessage,
): ChatPreviewDto {
  const message: ChatMessage = {
    title: rendered.subject,
    sections: [rendered.text],
    urgency: urgencyOf(event),
    eventTypes: [event.eventType],
  };
  const others = { blocks: [], priority: null, tags: [], severity: null };
  switch (channel) {
    case 'slack':
      return { ...others, title: slackText(message) };
    case 'teams': {
      const [title, ...blocks] = teamsCard(message).attachments[0].content.body.map((block) => block.text);
      return { ...others, title, blocks };
    }
    case 'ntfy': {
      const { title, body, priority, tags } = ntfyMessage(message);
      return { ...others, title, blocks: [body], priority, tags };
    }
    case 'pagerduty': {
      // The bucket is among the details only, which the preview does not show.
      const { summary, severity } = pagerDutyPayload({ ...event, bucket: 0 }, rendered);
      return { ...others, title: summary, blocks: [rendered.text], severity };
    }
  }
}

/** Syntax errors and unknown variables: 400, one line per problem. */
function requireValid(eventType: EventType, template: { subject: string; body: string }): void {
  const problems = validateTemplate(eventType, template);
  if (problems.length === 0) return;
  const shown = problems.slice(0, MAX_PROBLEM_LINES).map(formatTemplateProblem);
  if (problems.length > MAX_PROBLEM_LINES) shown.push(`... and ${problems.length - MAX_PROBLEM_LINES} more problems`);
  throw new BadRequestException(shown);
}

/** Values formatted as the alert job formats them (alerts.service.ts templateValues), for previews. */
const SAMPLE_VALUES: Record<EventType, TemplateValues> = {
  cert_expiring: {
    EndpointName: 'www.example.com:443, api.example.com:443',
    EndpointType: 'host',
    CommonName: 'www.example.com',
    NotAfter: '2030-01-15 12:00 UTC',
    DaysRemaining: '14',
    Fingerprint: '3f8a9c1e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a',
  },
  cert_expired: {
    EndpointName: 'www.example.com:443, api.example.com:443',
    EndpointType: 'host',
    CommonName: 'www.example.com',
    NotAfter: '2030-01-15 12:00 UTC',
    Fingerprint: '3f8a9c1e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a',
  }, // docs/api-contract.md section 16.
  rotation_regression: {
    EndpointName: 'www.example.com:443',
    EndpointType: 'host',
    CommonName: 'www.example.com',
    NotAfter: '2030-01-15 12:00 UTC',
    DaysRemaining: '80',
    Fingerprint: '3f8a9c1e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a',
    PreviousFingerprint: '9d1c7e3a5b2f8c4e6a0d2b4f6c8e0a2c4e6b8d0f2a4c6e8b0d2f4a6c8e0b2d4f',
    Regressions: 'sans, chainComplete',
  },
  renewal_not_deployed: {
    EndpointName: 'www.example.com:443',
    EndpointType: 'host',
    CommonName: 'www.example.com',
    NotAfter: '2030-01-15 12:00 UTC',
    DaysRemaining: '6',
    Fingerprint: '3f8a9c1e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a',
    NewFingerprint: '9d1c7e3a5b2f8c4e6a0d2b4f6c8e0a2c4e6b8d0f2a4c6e8b0d2f4a6c8e0b2d4f',
    NewNotBefore: '2030-01-10 08:00 UTC',
  },
  renewal_overdue: {
    EndpointName: 'www.example.com:443',
    EndpointType: 'host',
    CommonName: 'www.example.com',
    NotAfter: '2030-01-15 12:00 UTC',
    DaysRemaining: '20',
    Fingerprint: '3f8a9c1e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a',
    WindowStart: '2029-12-20 00:00 UTC',
    WindowEnd: '2029-12-22 00:00 UTC',
    ExplanationURL: 'https://ca.example.com/incident-2029-12',
  },
  cert_revoked: {
    EndpointName: 'www.example.com:443, api.example.com:443',
    EndpointType: 'host',
    CommonName: 'www.example.com',
    NotAfter: '2030-01-15 12:00 UTC',
    Fingerprint: '3f8a9c1e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a',
    RevokedAt: '2029-11-02 08:30 UTC',
    Reason: 'keyCompromise',
  },
};

function toDto(eventType: EventType, channel: TemplateChannel, override: { subject: string; body: string } | null): TemplateDto {
  const template = override ?? defaultTemplate(eventType, channel);
  return {
    eventType,
    channel,
    subject: template.subject,
    body: template.body,
    isCustom: override !== null,
    variables: [...TEMPLATE_VARIABLES[eventType]],
  };
}
