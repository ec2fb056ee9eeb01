import { randomUUID } from 'node:crypto';
import {
  RESULTS_BATCH_BYTES,
  RESULTS_BODY_LIMIT,
  SWEEP_REPORT_LIMITS,
  type SweepFinding,
  type SweepReport,
  withinErrorLimit,
} from '@certkeeper/domain/protocol';
import type { SweepProgress } from './sweep';
import type { DiscoveredService } from './sweep-probe';

/** What the API is told about a service: it derives hostnames from the chain itself. */
export function toSweepFinding(service: DiscoveredService): SweepFinding {
  const { address, port, reverseName, chain, tlsVersion, cipherSuite } = service;
  return { address, port, reverseName, chain, tlsVersion, cipherSuite };
}

/**
 * One batch of runSweep as protocol reports, in the order they must be posted: its findings split
 * so that each request (`{"reports":[report]}`) stays under `maxBytes` of JSON and within the API's
 * SWEEP_REPORT_LIMITS, every report with its own id and the same absolute progress, and only the
 * last one `final` with `error` (shortened to what the API takes).
 * A report always carries at least one of the remaining findings: a single chain is bounded by
 * the TLS stack's certificate list limit (about 100 KiB), far below RESULTS_BODY_LIMIT.
 */
export function toSweepReports(
  sweepId: string,
  progress: Pick<SweepProgress, 'addressesProbed' | 'findings' | 'final'>,
  error: string | null,
  maxBytes = RESULTS_BATCH_BYTES,
): SweepReport[] {
  const report = (findings: SweepFinding[], last: boolean): SweepReport => ({
    reportId: randomUUID(),
    sweepId,
    addressesProbed: progress.addressesProbed,
    findings,
    final: last && progress.final,
    error: last ? withinErrorLimit(error) : null,
  });
  // Measured on the largest envelope (final, with its error), so every report fits.
  const envelopeBytes = jsonBytes({ reports: [{ ...report([], true), final: true }] });
  const budget = Math.min(maxBytes, RESULTS_BODY_LIMIT) - envelopeBytes;
  const reports: SweepReport[] = [];
  let batch: SweepFinding[] = [];
  let bytes = 0;
  for (const finding of progress.findings.map(toSweepFinding)) {
    const size = jsonBytes(finding);
    // Findings after the first are preceded by a comma.
    if (batch.length > 0 && (bytes + 1 + size > budget || batch.length === SWEEP_REPORT_LIMITS.findings)) {
      reports.push(report(batch, false));
      [batch, bytes] = [[], 0];
    }
    bytes += (batch.length > 0 ? 1 : 0) + size;
    batch.push(finding);
  }
  reports.push(report(batch, true));
  return reports;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}
