import { RESULT_LIMITS, SWEEP_REPORT_LIMITS } from '@certkeeper/domain/protocol';
import type { DiscoveredService } from './sweep-probe';
import { toSweepReports } from './sweep-reports';

/** A service with a small chain, so that only the count of findings limits a report. */
const service = (n: number): DiscoveredService => ({
  address: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
  port: 443,
  reverseName: null,
  serverName: null,
  hostnames: [],
  chain: ['x'],
  tlsVersion: 'TLSv1.3',
  cipherSuite: null,
});

describe('toSweepReports', () => {
  it("keeps each report within the API's count of findings, in order and with nothing lost", () => {
    const total = 2 * SWEEP_REPORT_LIMITS.findings + 7;
    const findings = Array.from({ length: total }, (_, n) => service(n));

    const reports = toSweepReports('sw-1', { addressesProbed: total, findings, final: true }, null);

    expect(reports.map((report) => report.findings.length)).toEqual([SWEEP_REPORT_LIMITS.findings, SWEEP_REPORT_LIMITS.findings, 7]);
    expect(reports.map((report) => report.final)).toEqual([false, false, true]);
    expect(reports.flatMap((report) => report.findings.map((finding) => finding.address))).toEqual(findings.map((found) => found.address));
  });

  it("shortens the final report's error to the API's limit, so it is not refused for its length", () => {
    const [report] = toSweepReports(
      'sw-1',
      { addressesProbed: 0, findings: [], final: true },
      `the agent failed: ${'e'.repeat(RESULT_LIMITS.error)}`,
    );

    expect(report.error).toHaveLength(RESULT_LIMITS.error);
    expect(report.error!.startsWith('the agent failed: eee')).toBe(true);
    expect(report.error!.endsWith('…')).toBe(true);
  });

  it('leaves an error within the limit as it is', () => {
    const [report] = toSweepReports('sw-1', { addressesProbed: 3, findings: [], final: true }, 'the agent was stopped');
    expect(report.error).toBe('the agent was stopped');
  });
});
