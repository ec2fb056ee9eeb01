import { createHash } from 'node:crypto';
import type { ProbeTarget } from '@certkeeper/domain/discovery';
import type { SweepReport, SweepReportOutcome, SweepWorkItem } from '@certkeeper/domain/protocol';
import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { type LocalServer, startNodeTlsServer, testOutboundGuard, unusedPort } from '@certkeeper/net/testing';
import { ApiError } from '../api-client';
import { Backoff } from '../backoff';
import type { LogLevel } from '../log';
import type { SweepProbeResult } from './sweep-probe';
import { SweepRunner, type SweepRunnerOptions, sweepProbeDeadlines } from './sweep-runner';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const sweepOf = (sweepId: string, ranges: string[], ports = [443]): SweepWorkItem => ({
  sweepId,
  networkId: `net-${sweepId}`,
  ranges,
  ports,
});

/** The scanner API as the runner sees it, in memory: claims and every report posted, in order. */
class FakeApi {
  readonly events: string[] = [];
  readonly attempts: SweepReport[] = [];
  /** The claimable sweeps; a missing one answers null (409/403/404). */
  readonly claimable = new Map<string, SweepWorkItem>();
  /** Per attempt: an outcome status/code, or an error to throw. Default: accepted. */
  answer: (report: SweepReport, attempt: number) => SweepReportOutcome | Error = (report) => ({ ...ids(report), status: 'accepted' });

  readonly startSweep = (sweepId: string): Promise<SweepWorkItem | null> => {
    this.events.push(`claim ${sweepId}`);
    return Promise.resolve(this.claimable.get(sweepId) ?? null);
  };

  readonly postSweepReports = async (reports: SweepReport[]): Promise<SweepReportOutcome[]> => {
    await delay(1);
    return reports.map((report) => {
      this.attempts.push(report);
      const outcome = this.answer(report, this.attempts.length);
      if (outcome instanceof Error) throw outcome;
      if (outcome.status !== 'rejected') this.events.push(`report ${report.sweepId}${report.final ? ' final' : ''}`);
      return outcome;
    });
  };

  /** The reports the API took, per sweep. */
  accepted(sweepId: string): SweepReport[] {
    const seen = new Set<string>();
    return this.attempts.filter((report) => {
      const outcome = report.sweepId === sweepId && !seen.has(report.reportId);
      seen.add(report.reportId);
      return outcome;
    });
  }
}

const ids = (report: SweepReport) => ({ reportId: report.reportId, sweepId: report.sweepId });

/** A probe that finds a service where `isService` says so and a closed port elsewhere, after `ms`. */
function fakeProbe(options: { ms?: number; isService?: (target: ProbeTarget) => boolean; chain?: string[] } = {}) {
  const calls = { started: [] as ProbeTarget[], finished: 0, inFlight: 0 };
  const probe = async (target: ProbeTarget): Promise<SweepProbeResult> => {
    calls.started.push(target);
    calls.inFlight += 1;
    await delay(options.ms ?? 0);
    calls.inFlight -= 1;
    calls.finished += 1;
    if (!options.isService?.(target)) return { ...target, durationMs: 0, outcome: 'closed' };
    const service = {
      ...target,
      reverseName: null,
      serverName: null,
      hostnames: ['svc.example.test'],
      chain: options.chain ?? ['LEAF'],
      tlsVersion: 'TLSv1.3' as const,
      cipherSuite: 'TLS_AES_128_GCM_SHA256',
    };
    return { ...target, durationMs: 0, outcome: 'service', service };
  };
  return { probe, calls };
}

function runnerWith(api: FakeApi, probe: ReturnType<typeof fakeProbe>['probe'], options: Partial<SweepRunnerOptions> = {}) {
  const logs: { level: LogLevel; msg: string; fields?: Record<string, unknown> }[] = [];
  const runner = new SweepRunner({
    client: api,
    log: (level, msg, fields) => void logs.push({ level, msg, fields }),
    probeOptions: { reverseLookup: null },
    backoff: () => new Backoff(2, 10),
    ...options,
    sweepOptions: { probe, reportEveryMs: 60_000, ...options.sweepOptions },
  });
  return { runner, logs };
}

describe('SweepRunner', () => {
  it('claims the sweep, then posts its reports in order with growing progress and the final one last', async () => {
    const api = new FakeApi();
    api.claimable.set('sw-1', sweepOf('sw-1', ['10.0.0.0/29'], [443, 8443]));
    const { probe } = fakeProbe({ isService: (target) => target.address === '10.0.0.5' && target.port === 8443 });
    const { runner, logs } = runnerWith(api, probe, { sweepOptions: { reportEveryProbes: 4 } });

    runner.offer([sweepOf('sw-1', ['stale listing: the claim answers the current scope'])], 3);
    await runner.idle();

    const reports = api.accepted('sw-1');
    expect(api.events[0]).toBe('claim sw-1');
    expect(reports).toHaveLength(5); // 16 probes, a batch every 4, then the final one
    expect(reports.map((report) => report.final)).toEqual([false, false, false, false, true]);
    const progress = reports.map((report) => report.addressesProbed);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(reports[4]).toMatchObject({ addressesProbed: 8, error: null });
    expect(new Set(reports.map((report) => report.reportId)).size).toBe(5);
    expect(reports.flatMap((report) => report.findings)).toEqual([
      { address: '10.0.0.5', port: 8443, reverseName: null, chain: ['LEAF'], tlsVersion: 'TLSv1.3', cipherSuite: 'TLS_AES_128_GCM_SHA256' },
    ]);
    expect(logs.map((log) => log.msg)).toEqual(['sweep started', 'sweep finished']);
    expect(logs[0].fields).toMatchObject({ sweepId: 'sw-1', addresses: 8, concurrency: 3 });
    expect(logs[1].fields).toMatchObject({ addressesProbed: 8, service: 1, closed: 15 });
  });

  it('splits a batch whose findings do not fit in one request over several reports', async () => {
    const api = new FakeApi();
    api.claimable.set('sw-1', sweepOf('sw-1', ['10.0.0.0/29']));
    const { probe } = fakeProbe({ isService: () => true, chain: ['x'.repeat(1000)] });
    const { runner } = runnerWith(api, probe, { maxRequestBytes: 2500, sweepOptions: { reportEveryProbes: 1000 } });

    runner.offer([sweepOf('sw-1', [])], 8);
    await runner.idle();

    // One batch of 8 findings of about 1.1 kB each: two per request.
    const reports = api.accepted('sw-1');
    expect(reports.map((report) => report.findings.length)).toEqual([2, 2, 2, 2]);
    expect(reports.map((report) => report.final)).toEqual([false, false, false, true]);
    expect(reports.every((report) => report.addressesProbed === 8)).toBe(true);
    for (const report of reports) expect(Buffer.byteLength(JSON.stringify({ reports: [report] }))).toBeLessThanOrEqual(2500);
    expect(reports.flatMap((report) => report.findings.map((finding) => finding.address))).toEqual(
      Array.from({ length: 8 }, (_, i) => `10.0.0.${i}`),
    );
  });

  it('stops probing a sweep the API answers 409 for, drops its other reports and runs the next one', async () => {
    const api = new FakeApi();
    api.claimable.set('sw-1', sweepOf('sw-1', ['10.0.0.0/24']));
    api.claimable.set('sw-2', sweepOf('sw-2', ['10.1.0.0/30']));
    api.answer = (report, attempt) =>
      report.sweepId === 'sw-1' && attempt === 2
        ? { ...ids(report), status: 'rejected', code: 409, error: 'The sweep is not running.' }
        : { ...ids(report), status: 'accepted' };
    const { probe, calls } = fakeProbe({ ms: 2 });
    const { runner, logs } = runnerWith(api, probe, { sweepOptions: { reportEveryProbes: 5 } });

    runner.offer([sweepOf('sw-1', []), sweepOf('sw-2', [])], 2);
    await runner.idle();

    expect(api.attempts.filter((report) => report.sweepId === 'sw-1')).toHaveLength(2);
    expect(calls.started.filter((target) => target.address.startsWith('10.0.')).length).toBeLessThan(30);
    expect(calls.inFlight).toBe(0);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: expect.stringContaining('sweep sw-1 stopped: the API no longer runs it') }),
    );
    expect(api.accepted('sw-2').at(-1)).toMatchObject({ final: true, addressesProbed: 4, error: null });
  });

  it('retries a report through transient failures with the same id, and fails the sweep locally on a fatal one', async () => {
    const api = new FakeApi();
    api.claimable.set('sw-1', sweepOf('sw-1', ['10.0.0.0/30']));
    api.claimable.set('sw-2', sweepOf('sw-2', ['10.1.0.0/30']));
    api.answer = (report, attempt) => {
      if (attempt <= 2) return new ApiError('API unreachable: ECONNREFUSED', null, true);
      if (report.sweepId === 'sw-2') return new ApiError('API answered 401: token revoked', 401, false);
      return { ...ids(report), status: 'accepted' };
    };
    const { probe } = fakeProbe();
    const { runner, logs } = runnerWith(api, probe, { sweepOptions: { reportEveryProbes: 1000 } });

    runner.offer([sweepOf('sw-1', []), sweepOf('sw-2', [])], 4);
    await runner.idle();

    const sw1 = api.attempts.filter((report) => report.sweepId === 'sw-1');
    expect(sw1).toHaveLength(3);
    expect(new Set(sw1.map((report) => report.reportId)).size).toBe(1);
    expect(sw1[2]).toMatchObject({ final: true, addressesProbed: 4 });
    expect(logs).toContainEqual(expect.objectContaining({ level: 'info', msg: 'sweep finished' }));
    expect(api.attempts.filter((report) => report.sweepId === 'sw-2')).toHaveLength(1);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'error', msg: 'sweep sw-2 failed: could not post a report: API answered 401: token revoked' }),
    );
  });

  it('runs every sweep of a listing with runAll (--once) and counts those the API did not hear the end of', async () => {
    const api = new FakeApi();
    for (const sweepId of ['sw-1', 'sw-2', 'sw-3']) api.claimable.set(sweepId, sweepOf(sweepId, ['10.0.0.0/30']));
    api.answer = (report) => {
      if (report.sweepId === 'sw-2') return new ApiError('API answered 401: token revoked', 401, false);
      if (report.sweepId === 'sw-3') return { ...ids(report), status: 'rejected', code: 409, error: 'The sweep is not running.' };
      return { ...ids(report), status: 'accepted' };
    };
    const { probe } = fakeProbe();
    const { runner } = runnerWith(api, probe, { sweepOptions: { reportEveryProbes: 1000 } });

    // sw-4 is not ours any more (its claim answers null): skipped, and the API knows why.
    const undelivered = await runner.runAll([sweepOf('sw-1', []), sweepOf('sw-2', []), sweepOf('sw-3', []), sweepOf('sw-4', [])], 2);

    expect(undelivered).toBe(1);
    expect(api.events).toEqual(['claim sw-1', 'report sw-1 final', 'claim sw-2', 'claim sw-3', 'claim sw-4']);
  });

  it('gives up on a report once its retry time is spent', async () => {
    const api = new FakeApi();
    api.claimable.set('sw-1', sweepOf('sw-1', ['10.0.0.0/30']));
    api.answer = () => new ApiError('API answered 503: busy', 503, true);
    const { probe } = fakeProbe();
    const { runner, logs } = runnerWith(api, probe, { reportRetryMs: 60 });

    runner.offer([sweepOf('sw-1', [])], 4);
    await runner.idle();

    expect(api.attempts.length).toBeGreaterThan(2);
    expect(logs.at(-1)).toMatchObject({ level: 'error', msg: 'sweep sw-1 failed: could not post a report: API answered 503: busy' });
  });

  it('on stop() lets the probes in flight finish, starts no new one and posts a final report saying why', async () => {
    const api = new FakeApi();
    api.claimable.set('sw-1', sweepOf('sw-1', ['10.0.0.0/24']));
    api.claimable.set('sw-2', sweepOf('sw-2', ['10.1.0.0/24']));
    const { probe, calls } = fakeProbe({ ms: 30 });
    const { runner } = runnerWith(api, probe);

    runner.offer([sweepOf('sw-1', []), sweepOf('sw-2', [])], 4);
    await delay(75);
    const startedBeforeStop = calls.started.length;
    await runner.stop();

    expect(calls.inFlight).toBe(0);
    expect(calls.started).toHaveLength(startedBeforeStop);
    expect(calls.finished).toBe(startedBeforeStop);
    const reports = api.accepted('sw-1');
    const last = reports[reports.length - 1];
    expect(last.final).toBe(true);
    expect(last.error).toBe(`the agent was stopped after ${last.addressesProbed} of 256 addresses`);
    expect(last.addressesProbed).toBe(startedBeforeStop);
    // The queued sweep stays queued on the API for the next start.
    expect(api.events).not.toContain('claim sw-2');
    runner.offer([sweepOf('sw-2', [])], 4);
    await runner.idle();
    expect(api.events).not.toContain('claim sw-2');
  });

  it('on stop() retries the last report for a few seconds at most, not ten minutes', async () => {
    const api = new FakeApi();
    api.claimable.set('sw-1', sweepOf('sw-1', ['10.0.0.0/24']));
    api.answer = () => new ApiError('API unreachable: ECONNREFUSED', null, true);
    const { probe } = fakeProbe({ ms: 20 });
    const { runner, logs } = runnerWith(api, probe, { backoff: () => new Backoff(50, 50), stopGraceMs: 200 });

    runner.offer([sweepOf('sw-1', [])], 2);
    await delay(50);
    const started = Date.now();
    await runner.stop();

    expect(Date.now() - started).toBeLessThan(1000);
    expect(api.attempts.at(-1)).toMatchObject({ final: true, error: expect.stringContaining('the agent was stopped after') });
    expect(logs.at(-1)).toMatchObject({ level: 'error', msg: expect.stringContaining('sweep sw-1 failed: could not post a report') });
  });

  it('skips a sweep whose claim answers null and runs the next', async () => {
    const api = new FakeApi();
    api.claimable.set('sw-2', sweepOf('sw-2', ['10.1.0.0/30']));
    const { probe, calls } = fakeProbe();
    const { runner, logs } = runnerWith(api, probe);

    runner.offer([sweepOf('sw-1', ['10.0.0.0/30']), sweepOf('sw-2', [])], 4);
    await runner.idle();

    expect(api.events).toEqual(['claim sw-1', 'claim sw-2', 'report sw-2 final']);
    expect(calls.started.every((target) => target.address.startsWith('10.1.0.'))).toBe(true);
    expect(logs[0]).toMatchObject({ level: 'info', msg: 'sweep sw-1 is no longer queued for this agent; skipping it' });
  });

  it('fails a sweep whose scope does not parse with a final report saying why, and runs the next', async () => {
    const api = new FakeApi();
    api.claimable.set('sw-1', sweepOf('sw-1', ['10.0.0.0/33']));
    api.claimable.set('sw-2', sweepOf('sw-2', ['10.1.0.0/30']));
    const { probe, calls } = fakeProbe();
    const { runner } = runnerWith(api, probe);

    runner.offer([sweepOf('sw-1', []), sweepOf('sw-2', [])], 4);
    await runner.idle();

    expect(api.accepted('sw-1')).toEqual([
      expect.objectContaining({
        final: true,
        addressesProbed: 0,
        findings: [],
        error: expect.stringMatching(/^the network's ranges or ports could not be read: /),
      }),
    ]);
    expect(calls.started).toHaveLength(4);
    expect(api.accepted('sw-2').at(-1)).toMatchObject({ final: true });
  });

  it('reports a sweep that failed on a bug (a probe that threw) as failed, with the reason', async () => {
    const api = new FakeApi();
    api.claimable.set('sw-1', sweepOf('sw-1', ['10.0.0.0/30']));
    const { runner } = runnerWith(api, () => Promise.reject(new Error('probe bug')));

    runner.offer([sweepOf('sw-1', [])], 1);
    await runner.idle();

    expect(api.accepted('sw-1')).toEqual([
      expect.objectContaining({ final: true, addressesProbed: 0, error: 'the agent failed: probe bug' }),
    ]);
  });

  it('runs one sweep at a time, oldest first, each to its final report before the next claim', async () => {
    const api = new FakeApi();
    for (const [id, range] of [
      ['sw-1', '10.0.0.0/29'],
      ['sw-2', '10.1.0.0/29'],
      ['sw-3', '10.2.0.0/29'],
    ]) {
      api.claimable.set(id, sweepOf(id, [range]));
    }
    const running = new Set<string>();
    let overlap = false;
    const { probe: inner } = fakeProbe({ ms: 3 });
    const probe = async (target: ProbeTarget) => {
      const network = target.address.split('.').slice(0, 2).join('.');
      running.add(network);
      if (running.size > 1) overlap = true;
      const result = await inner(target);
      running.delete(network);
      return result;
    };
    const { runner } = runnerWith(api, probe, { sweepOptions: { reportEveryProbes: 1000 } });

    runner.offer([sweepOf('sw-1', []), sweepOf('sw-2', [])], 4);
    // A later listing: sw-1 is running (no longer listed), sw-3 was queued meanwhile.
    await delay(5);
    runner.offer([sweepOf('sw-2', []), sweepOf('sw-3', [])], 4);
    await runner.idle();

    expect(overlap).toBe(false);
    expect(api.events).toEqual(['claim sw-1', 'report sw-1 final', 'claim sw-2', 'report sw-2 final', 'claim sw-3', 'report sw-3 final']);
  });

  it('sweeps loopback with the real probe: a TLS service is found with its chain, a closed port is not', async () => {
    const minted = await mintCertificate({ subject: 'CN=found.example.test', sans: ['found.example.test'] });
    const server: LocalServer = await startNodeTlsServer({ cert: minted.pem, key: await privateKeyPem(minted.keys.privateKey) });
    try {
      const closedPort = await unusedPort();
      const api = new FakeApi();
      api.claimable.set('sw-1', sweepOf('sw-1', ['127.0.0.1/32'], [server.port, closedPort]));
      const runner = new SweepRunner({
        client: api,
        log: () => undefined,
        probeOptions: { guard: testOutboundGuard(), connectTimeoutMs: 1000, handshakeTimeoutMs: 1000, reverseLookup: null },
      });

      runner.offer([sweepOf('sw-1', [])], 2);
      await runner.idle();

      const reports = api.accepted('sw-1');
      expect(reports).toEqual([expect.objectContaining({ final: true, error: null, addressesProbed: 1 })]);
      expect(reports[0].findings).toEqual([
        {
          address: '127.0.0.1',
          port: server.port,
          reverseName: null,
          chain: [expect.any(String)],
          tlsVersion: 'TLSv1.3',
          cipherSuite: expect.any(String),
        },
      ]);
      const leaf = reports[0].findings[0].chain[0];
      const der = Buffer.from(leaf.replace(/-----[^-]+-----|\s/g, ''), 'base64');
      expect(createHash('sha256').update(der).digest('hex')).toBe(createHash('sha256').update(minted.der).digest('hex'));
    } finally {
      await server.close();
    }
  });
});

describe('sweepProbeDeadlines', () => {
  it("keeps the sweep's short deadlines, or the scanner's when they are shorter", () => {
    expect(sweepProbeDeadlines({ connectTimeoutMs: 5000, handshakeTimeoutMs: 10_000 })).toEqual({
      connectTimeoutMs: 1500,
      handshakeTimeoutMs: 3000,
    });
    expect(sweepProbeDeadlines({ connectTimeoutMs: 500, handshakeTimeoutMs: 800 })).toEqual({
      connectTimeoutMs: 500,
      handshakeTimeoutMs: 800,
    });
  });
});
