import { OutboundDenyList, OutboundGuard } from '@certkeeper/net';
import type { AppConfig } from '../../config/app-config';

/**
 * The guard for every connection the API opens to an address someone typed in: the SMTP relay of
 * the mail settings now, the OIDC issuer next (docs/architecture.md, Outbound connections).
 * OUTBOUND_DENY, or the default list when the configuration does not say.
 */
export function outboundGuardFor(config: Pick<AppConfig, 'outboundDeny'>): OutboundGuard {
  return new OutboundGuard(config.outboundDeny ?? OutboundDenyList.DEFAULT);
}
