import type { Schemas } from '../../api/client';

/**
 * How far a certificate is trusted, in a few words: the root stores whose anchors its chain
 * reaches (SPEC's trusted-by), and whether it is an anchor itself.
 */
export function trustSummary(certificate: Pick<Schemas['CertificateSummaryDto'], 'trustedBy' | 'isTrustAnchor' | 'selfSigned'>): string {
  const stores = certificate.trustedBy.join(', ');
  if (certificate.isTrustAnchor) return stores ? `trust anchor; trusted by ${stores}` : 'trust anchor';
  if (stores) return `trusted by ${stores}`;
  return certificate.selfSigned ? 'self-signed, not trusted' : 'not trusted';
}
