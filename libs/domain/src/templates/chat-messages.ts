// The chat channels' messages (docs/api-contract.md section 17), one home for what the senders
// post and what the templates screen previews: a rendered template becomes Slack mrkdwn, a Teams
// Adaptive Card, an ntfy message or a PagerDuty event's payload. Pure: the API posts them.
import type { TemplateValues } from './event-types';

/** How urgent a message is, on ntfy's scale: 5 expired or revoked, 4 at 7 days or fewer, 3 otherwise. */
export type Urgency = 3 | 4 | 5;

/** One chat message: a title, its paragraphs (each a rendered template's text), how urgent the most urgent is, and its event types. */
export interface ChatMessage {
  title: string;
  sections: string[];
  urgency: Urgency;
  eventTypes: string[];
}

/** Events that need someone now, whatever the days: the certificate is unusable already. */
const UNUSABLE = new Set<string>(['cert_expired', 'cert_revoked']);
const SOON_DAYS = 7;

/** How urgent one event is; PagerDuty's severity and ntfy's priority follow it. */
export function urgencyOf(event: { eventType: string; values: TemplateValues }): Urgency {
  if (UNUSABLE.has(event.eventType)) return 5;
  const days = Number(event.values.DaysRemaining);
  return Number.isFinite(days) && days <= SOON_DAYS ? 4 : 3;
}

/**
 * Slack: the title in bold, then each section, in mrkdwn. `&`, `<` and `>` are escaped as Slack
 * asks, so a value (a common name such as `<!channel>`) can never mention anyone or make a link.
 */
export function slackText(message: ChatMessage): string {
  return [`*${slackEscape(message.title)}*`, ...message.sections.map(slackEscape)].join('\n\n');
}

function slackEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** An Adaptive Card's TextBlock, the one element Certkeeper's cards hold. */
export interface TextBlock {
  type: 'TextBlock';
  text: string;
  wrap: true;
  weight?: 'Bolder';
  size?: 'Medium';
  separator?: true;
}

/** Teams' message: one attachment, the card. */
export interface TeamsCardMessage {
  type: 'message';
  attachments: { contentType: string; content: { $schema: string; type: 'AdaptiveCard'; version: '1.4'; body: TextBlock[] } }[];
}

/** Teams: an Adaptive Card 1.4, its title a bold TextBlock and each section a TextBlock of its own. */
export function teamsCard(message: ChatMessage): TeamsCardMessage {
  const title: TextBlock = { type: 'TextBlock', text: message.title, weight: 'Bolder', size: 'Medium', wrap: true };
  const blocks = message.sections.map((text): TextBlock => ({ type: 'TextBlock', text, wrap: true, separator: true }));
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [title, ...blocks],
        },
      },
    ],
  };
}

/** ntfy shows a tag that names an emoji as that emoji: the urgency's, then the event types as plain tags. */
export const NTFY_TAG_OF_URGENCY = { 5: 'rotating_light', 4: 'warning', 3: 'lock' } as const;

/** ntfy: the sections as the body, with the title, priority and tags its headers carry. */
export function ntfyMessage(message: ChatMessage): { title: string; priority: Urgency; tags: string[]; body: string } {
  return {
    title: message.title,
    priority: message.urgency,
    tags: [NTFY_TAG_OF_URGENCY[message.urgency], ...message.eventTypes],
    body: message.sections.join('\n\n'),
  };
}

export const PAGERDUTY_SEVERITY_OF_URGENCY = { 5: 'critical', 4: 'error', 3: 'warning' } as const;
// PagerDuty refuses a longer summary.
const PAGERDUTY_SUMMARY_MAX_LENGTH = 1024;

/** PagerDuty Events API v2: a trigger's payload, the rendered subject its summary and the text among its details. */
export function pagerDutyPayload(
  event: { eventType: string; bucket: number; values: TemplateValues },
  rendered: { subject: string; text: string },
): { summary: string; source: string; severity: (typeof PAGERDUTY_SEVERITY_OF_URGENCY)[Urgency]; custom_details: object } {
  return {
    summary: rendered.subject.slice(0, PAGERDUTY_SUMMARY_MAX_LENGTH),
    source: 'certkeeper',
    severity: PAGERDUTY_SEVERITY_OF_URGENCY[urgencyOf(event)],
    custom_details: { message: rendered.text, event_type: event.eventType, threshold: event.bucket, ...event.values },
  };
}
