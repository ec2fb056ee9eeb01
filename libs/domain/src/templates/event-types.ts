// Notification events and the variables their templates may use (docs/api-contract.md section 6).

export const EVENT_TYPES = [
  'cert_expiring',
  'cert_expired',
  // docs/api-contract.md section 15
  'renewal_overdue',
  // docs/api-contract.md section 16
  'rotation_regression',
  'renewal_not_deployed',
  // Revocation (docs/api-contract.md section 18).
  'cert_revoked',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** E-mail to users, and the kinds of notification channel an administrator creates (docs/api-contract.md section 17). */
export const CHANNELS = ['email', 'webhook', 'slack', 'teams', 'ntfy', 'pagerduty'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The kinds of notification channel: every channel but e-mail, which goes to users. */
export const CHANNEL_KINDS = ['webhook', 'slack', 'teams', 'ntfy', 'pagerduty'] as const satisfies readonly Channel[];
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** The channels whose messages are rendered from templates: a webhook sends the event's data, never a template. */
export const TEMPLATE_CHANNELS = ['email', 'slack', 'teams', 'ntfy', 'pagerduty'] as const satisfies readonly Channel[];
export type TemplateChannel = (typeof TEMPLATE_CHANNELS)[number];

/** What every alert about a current certificate may say, in the order docs/api-contract.md section 6 lists it. */
const CERTIFICATE_VARIABLES = ['EndpointName', 'EndpointType', 'CommonName', 'NotAfter', 'DaysRemaining', 'Fingerprint'] as const;

/** In the order docs/api-contract.md section 6 lists them; the API shows this list to template authors. */
export const TEMPLATE_VARIABLES: Record<EventType, readonly string[]> = {
  cert_expiring: CERTIFICATE_VARIABLES,
  cert_expired: CERTIFICATE_VARIABLES.filter((name) => name !== 'DaysRemaining'),
  // docs/api-contract.md section 15.
  renewal_overdue: [...CERTIFICATE_VARIABLES, 'WindowStart', 'WindowEnd', 'ExplanationURL'],
  // docs/api-contract.md section 16.
  rotation_regression: [...CERTIFICATE_VARIABLES, 'PreviousFingerprint', 'Regressions'],
  renewal_not_deployed: [...CERTIFICATE_VARIABLES, 'NewFingerprint', 'NewNotBefore'],
  // docs/api-contract.md section 18.
  cert_revoked: [...CERTIFICATE_VARIABLES.filter((name) => name !== 'DaysRemaining'), 'RevokedAt', 'Reason'],
};

/** Variable name to its already formatted value (dates, joined endpoint names): rendering only inserts. */
export type TemplateValues = Record<string, string>;

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

export function isChannel(value: string): value is Channel {
  return (CHANNELS as readonly string[]).includes(value);
}

export function isTemplateChannel(value: string): value is TemplateChannel {
  return (TEMPLATE_CHANNELS as readonly string[]).includes(value);
}
