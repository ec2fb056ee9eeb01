import type { SourceHit } from '../notification-events';

/** The facts of the renewal events (docs/api-contract.md section 16), optional fields of CertificateFacts. */
export interface RenewalFacts {
  /** The latest rotation to this certificate that regressed, while it is current; absent otherwise. */
  regressedRotation?: { fromFingerprint: string; regressions: readonly string[] };
  /** The stored renewal this current certificate should have been replaced by; absent when none. */
  supersededBy?: { fingerprint: string; notBefore: Date };
}

/** A date as the alert job writes every date into a template: `2030-01-15 12:00 UTC`. */
export function templateDate(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Once per (recipient, new fingerprint): one bucket whatever the regressions. */
export function rotationRegressionSource({ regressedRotation }: RenewalFacts): SourceHit | null {
  if (!regressedRotation || regressedRotation.regressions.length === 0) return null;
  return {
    bucket: 0,
    values: { PreviousFingerprint: regressedRotation.fromFingerprint, Regressions: regressedRotation.regressions.join(', ') },
  };
}

/** Once per (recipient, fingerprint of the certificate still deployed): one bucket whichever renewal supersedes it. */
export function renewalNotDeployedSource({ supersededBy }: RenewalFacts): SourceHit | null {
  if (!supersededBy) return null;
  return { bucket: 0, values: { NewFingerprint: supersededBy.fingerprint, NewNotBefore: templateDate(supersededBy.notBefore) } };
}
