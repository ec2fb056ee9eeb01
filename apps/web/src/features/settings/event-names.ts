import type { Schemas } from '../../api/client';

export type EventType = Schemas['TemplateDto']['eventType'];

/** What the settings screens call each event type (docs/api-contract.md sections 6 and 15 to 18). */
export const EVENT_NAMES: Record<EventType, string> = {
  cert_expiring: 'Certificate expiring',
  cert_expired: 'Certificate expired',
  renewal_overdue: 'Renewal overdue',
  rotation_regression: 'Renewal made things worse',
  renewal_not_deployed: 'Renewal not deployed',
  cert_revoked: 'Certificate revoked',
};
