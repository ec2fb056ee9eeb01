import { isIssuedBy } from './issued-by';
import type { ParsedCertificate } from './types';

type ChainLink = Pick<
  ParsedCertificate,
  'subject' | 'issuer' | 'subjectKeyId' | 'authorityKeyId' | 'subjectDnHash' | 'issuerDnHash' | 'selfSigned'
>;

/**
 * Whether a chain as a server presented it is complete on its own and in order: each certificate
 * is issued by the next, and the last is self-signed or one of `anchors` (subject and key id of
 * a trust anchor). A server that omits its intermediate breaks clients even when the
 * intermediate is known elsewhere, so only the presented certificates count.
 */
export function isCompleteChain(chain: ChainLink[], isAnchor: (certificate: ChainLink) => boolean = () => false): boolean {
  if (chain.length === 0) return false;
  for (let i = 0; i + 1 < chain.length; i += 1) {
    if (!isIssuedBy(chain[i], chain[i + 1])) return false;
  }
  const last = chain[chain.length - 1];
  return last.selfSigned || isAnchor(last);
}
