import type { CertificateFacts, EventContext } from '@certkeeper/domain';
import type { ExpiringEndpoint } from '../../expiry/expiry.repository';

/** A current certificate with the facts its event sources read, and the endpoints in scope its notifications name. */
export interface CandidateCertificate extends CertificateFacts {
  commonName: string | null;
  endpoints: ExpiringEndpoint[];
}

/**
 * Loads, for one recipient scope (tags; empty means every endpoint), the current certificates whose
 * events may be due now, with the facts of one event family. The alert job merges every loader's
 * certificates by fingerprint and asks the event sources (libs/domain) which events are due, so a
 * new event family is a source and, when it reads new facts, a loader: never a second job.
 */
export interface FactLoader {
  load(scope: readonly string[], context: EventContext): Promise<CandidateCertificate[]>;
}

/**
 * One candidate per certificate, whatever number of loaders found it: their facts together, and
 * every endpoint any of them named (once each), in the order the loaders first found them.
 */
export function mergeCandidates(lists: readonly CandidateCertificate[][]): CandidateCertificate[] {
  const byFingerprint = new Map<string, CandidateCertificate>();
  for (const candidate of lists.flat()) {
    const known = byFingerprint.get(candidate.fingerprint);
    if (!known) {
      byFingerprint.set(candidate.fingerprint, { ...candidate });
      continue;
    }
    const endpoints = [...known.endpoints];
    for (const endpoint of candidate.endpoints) if (!endpoints.some((e) => e.id === endpoint.id)) endpoints.push(endpoint);
    Object.assign(known, candidate, { endpoints });
  }
  return [...byFingerprint.values()];
}
