// Notification templates: `{{ .Variable }}` interpolation, validation for saving, rendering for
// sending, and the built-in defaults. Pure: the API stores, sends and logs.
export {
  CHANNEL_KINDS,
  CHANNELS,
  EVENT_TYPES,
  TEMPLATE_CHANNELS,
  TEMPLATE_VARIABLES,
  isChannel,
  isEventType,
  isTemplateChannel,
} from './event-types';
export type { Channel, ChannelKind, EventType, TemplateChannel, TemplateValues } from './event-types';
export { formatTemplateProblem, validateTemplate } from './validate-template';
export type { TemplateField, TemplateProblem } from './validate-template';
export { TemplateRenderError, renderTemplate } from './render-template';
export type { RenderedMessage } from './render-template';
export { DEFAULT_TEMPLATES, defaultTemplate, renderDefaultAsPlainText } from './default-templates';
export { htmlToText } from './html-to-text';
export { escapeHtml } from './escape-html';
export {
  NTFY_TAG_OF_URGENCY,
  PAGERDUTY_SEVERITY_OF_URGENCY,
  ntfyMessage,
  pagerDutyPayload,
  slackText,
  teamsCard,
  urgencyOf,
} from './chat-messages';
export type { ChatMessage, TeamsCardMessage, TextBlock, Urgency } from './chat-messages';
