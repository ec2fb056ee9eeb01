import type { Schemas } from '../../api/client';

type AlertFailureCount = Schemas['AlertFailureCountDto'];

/** The API's failure classes (docs/api-contract.md section 6) in words; a reply code follows where the relay gave one. */
const REASON_WORDS: Record<AlertFailureCount['reason'], string> = {
  'outbound-denied': 'refused by OUTBOUND_DENY',
  dns: "relay's name not resolved",
  refused: 'connection refused',
  unreachable: 'relay unreachable',
  timeout: 'relay did not answer in time',
  tls: 'TLS failed',
  authentication: 'user name and password not accepted',
  rejected: 'rejected',
  'connection-lost': 'connection closed unexpectedly',
  other: 'unexpected SMTP error',
  internal: 'internal error, see the log',
};

/** "Done: 2 sent, 0 already sent before, 3 failed (3 rejected with reply code 550; retried on the next run)." */
export function alertRunSentence(totals: Schemas['AlertTotalsDto']): string {
  const done = `Done: ${totals.alertsSent} sent, ${totals.alreadySent} already sent before, ${totals.failed} failed`;
  if (totals.failed === 0) return `${done}.`;
  const reasons = totals.failures.map(
    (failure) =>
      `${failure.count} ${REASON_WORDS[failure.reason]}${failure.replyCode === null ? '' : ` with reply code ${failure.replyCode}`}`,
  );
  return `${done} (${[...reasons, 'retried on the next run'].join('; ')}).`;
}
