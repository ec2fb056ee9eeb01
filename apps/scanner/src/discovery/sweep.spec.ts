import { createHash } from 'node:crypto';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { type NetworkScope, parseNetworkScope, type ProbeTarget, scopeContains } from '@certkeeper/domain/discovery';
import { mintCertificate, mintChain, type MintedCertificate, type MintedChain, privateKeyPem } from '@certkeeper/domain/testing';
import { OutboundGuard, parseOutboundDeny } from '@certkeeper/net';
import { type LocalServer, startNodeTlsServer, startTarpit, unusedPort } from '@certkeeper/net/testing';
import { runSweep, type SweepProgress } from './sweep';
import { probeSweepTarget, type SweepProbeOptions, type SweepProbeResult } from './sweep-probe';

const fingerprintOfPem = (pem: string) =>
  createHash('sha256')
    .update(Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64'))
    .digest('hex');
const fingerprintOf = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

function scopeOf(ranges: string[], ports: number[]): NetworkScope {
  const parsed = parseNetworkScope({ ranges, ports });
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return parsed.value;
}

function guardDenying(raw: string): OutboundGuard {
  const parsed = parseOutboundDeny(raw);
  if (!parsed.ok) throw new Error(parsed.problem);
  return new OutboundGuard(parsed.value);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A listener on another loopback address, counting connections: proof the guard kept the sweep away. */
async function countingListener(address: string, port: number): Promise<{ connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = createTcpServer((socket: Socket) => {
    connections += 1;
    socket.on('error', () => undefined);
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolve());
  });
  return {
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('runSweep over loopback', () => {
  let single: MintedCertificate;
  let chain: MintedChain;
  let servers: LocalServer[];
  let tlsPort: number;
  let chainPort: number;
  let tarpitPort: number;
  let closedPort: number;
  // Denies what the default list does, plus 127.0.0.3.
  const guard = guardDenying('default,127.0.0.3/32');
  const probeOptions: SweepProbeOptions = {
    guard,
    connectTimeoutMs: 300,
    handshakeTimeoutMs: 300,
    reverseLookup: (address) => Promise.resolve(address === '127.0.0.1' ? 'svc.example.test' : null),
  };

  beforeAll(async () => {
    [single, chain] = await Promise.all([
      mintCertificate({ subject: 'CN=svc.example.test', sans: ['svc.example.test', 'www.example.test'] }),
      mintChain(),
    ]);
    servers = await Promise.all([
      startNodeTlsServer({ cert: single.pem, key: await privateKeyPem(single.keys.privateKey) }),
      startNodeTlsServer({ cert: chain.leaf.pem + chain.intermediate.pem, key: await privateKeyPem(chain.leaf.keys.privateKey) }),
      startTarpit(),
    ]);
    [tlsPort, chainPort, tarpitPort] = servers.map((server) => server.port);
    closedPort = await unusedPort();
  });
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  it('finds the services, counts closed, silent and refused targets, and reports in growing batches', async () => {
    // The servers listen on 127.0.0.1 only: the same ports on .2 and .4 are closed.
    const scope = scopeOf(['127.0.0.1-127.0.0.4'], [tlsPort, chainPort, closedPort, tarpitPort]);
    const denied = await countingListener('127.0.0.3', tlsPort);
    const probed: ProbeTarget[] = [];
    const reports: SweepProgress[] = [];
    const started = Date.now();
    try {
      const summary = await runSweep(scope, {
        concurrency: 4,
        reportEveryProbes: 5,
        probeOptions,
        probe: (target, options) => {
          probed.push(target);
          return probeSweepTarget(target, options);
        },
        report: (report) => {
          reports.push(report);
        },
      });
      expect(summary).toEqual({
        probed: 16,
        addressesProbed: 4,
        aborted: false,
        counts: { service: 2, closed: 9, silent: 1, refusedByGuard: 4, notTls: 0 },
      });
      expect(denied.connections()).toBe(0);
    } finally {
      await denied.close();
    }
    // Tarpit and services run side by side: the sweep takes about one handshake deadline.
    expect(Date.now() - started).toBeLessThan(2000);
    expect(probed).toHaveLength(16);
    expect(probed.every((target) => scopeContains(scope, target.address))).toBe(true);

    // Batches of five, then the last: progress only grows, and each finding is reported once.
    expect(reports.map((report) => report.probed)).toEqual([5, 10, 15, 16]);
    expect(reports.map((report) => report.final)).toEqual([false, false, false, true]);
    const last = reports[reports.length - 1];
    expect(last).toMatchObject({ probesTotal: 16, addressesTotal: 4, addressesProbed: 4, aborted: false });
    const findings = reports.flatMap((report) => report.findings);
    expect(findings.map((finding) => `${finding.address}:${finding.port}`).sort()).toEqual(
      [`127.0.0.1:${chainPort}`, `127.0.0.1:${tlsPort}`].sort(),
    );
    const byPort = new Map(findings.map((finding) => [finding.port, finding]));
    expect(byPort.get(tlsPort)).toMatchObject({ reverseName: 'svc.example.test', hostnames: ['svc.example.test', 'www.example.test'] });
    expect(byPort.get(tlsPort)?.chain.map(fingerprintOfPem)).toEqual([fingerprintOf(single)]);
    expect(byPort.get(chainPort)?.chain.map(fingerprintOfPem)).toEqual([fingerprintOf(chain.leaf), fingerprintOf(chain.intermediate)]);
  });

  it('on abort takes no new target, finishes the probes in flight and sends a last report', async () => {
    // Tarpits only: every probe lasts its full deadline, so the abort lands mid-flight.
    const more = await Promise.all([startTarpit(), startTarpit(), startTarpit()]);
    servers.push(...more);
    const scope = scopeOf(['127.0.0.1'], [tarpitPort, ...more.map((server) => server.port)]);
    const controller = new AbortController();
    const started: ProbeTarget[] = [];
    const finished: SweepProbeResult[] = [];
    const reports: SweepProgress[] = [];
    const sweep = runSweep(scope, {
      concurrency: 2,
      signal: controller.signal,
      probeOptions,
      probe: async (target, options) => {
        started.push(target);
        const result = await probeSweepTarget(target, options);
        finished.push(result);
        return result;
      },
      report: (report) => {
        reports.push(report);
      },
    });
    await delay(100);
    controller.abort();
    const summary = await sweep;
    expect(started).toHaveLength(2);
    expect(finished.map((result) => result.outcome)).toEqual(['silent', 'silent']);
    expect(summary).toMatchObject({ probed: 2, aborted: true, counts: { silent: 2 } });
    expect(reports).toEqual([expect.objectContaining({ probed: 2, probesTotal: 4, final: true, aborted: true })]);
  });
});

describe('runSweep with a stand-in probe', () => {
  const instant = (target: ProbeTarget): Promise<SweepProbeResult> =>
    new Promise((resolve) => setImmediate(() => resolve({ ...target, durationMs: 0, outcome: 'closed' })));

  it('keeps at most `concurrency` probes in flight over 65,536 targets, each once', async () => {
    const scope = scopeOf(['10.20.0.0/16'], [443]);
    let inFlight = 0;
    let maxInFlight = 0;
    let outside = 0;
    const seen = new Set<string>();
    const reports: SweepProgress[] = [];
    const summary = await runSweep(scope, {
      concurrency: 8,
      reportEveryProbes: 4096,
      reportEveryMs: 60_000,
      probeOptions: { reverseLookup: null },
      probe: async (target) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        if (!scopeContains(scope, target.address)) outside += 1;
        seen.add(target.address);
        const result = await instant(target);
        inFlight -= 1;
        return result;
      },
      report: (report) => {
        reports.push(report);
      },
    });
    expect(maxInFlight).toBe(8);
    expect(outside).toBe(0);
    expect(seen.size).toBe(65_536);
    expect(summary).toMatchObject({ probed: 65_536, addressesProbed: 65_536, counts: { closed: 65_536 } });
    expect(reports).toHaveLength(17);
    expect(reports.map((report) => report.probed)).toEqual([...Array.from({ length: 16 }, (_, i) => (i + 1) * 4096), 65_536]);
  });

  it('reports by time when probes are slow', async () => {
    const scope = scopeOf(['10.0.0.0/29'], [443]);
    const reports: SweepProgress[] = [];
    await runSweep(scope, {
      concurrency: 1,
      reportEveryProbes: 1000,
      reportEveryMs: 40,
      probeOptions: { reverseLookup: null },
      probe: async (target) => {
        await delay(25);
        return { ...target, durationMs: 25, outcome: 'silent', stage: 'connect' };
      },
      report: (report) => {
        reports.push(report);
      },
    });
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(reports[reports.length - 1]).toMatchObject({ probed: 8, final: true });
    const progress = reports.map((report) => report.probed);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('fails when a report fails, after the probes in flight finish', async () => {
    const scope = scopeOf(['10.0.0.0/24'], [443]);
    let inFlight = 0;
    let calls = 0;
    const sweep = runSweep(scope, {
      concurrency: 4,
      reportEveryProbes: 10,
      probeOptions: { reverseLookup: null },
      probe: async (target) => {
        inFlight += 1;
        const result = await instant(target);
        inFlight -= 1;
        return result;
      },
      report: () => {
        calls += 1;
        return Promise.reject(new Error('API unavailable'));
      },
    });
    await expect(sweep).rejects.toThrow('API unavailable');
    expect(inFlight).toBe(0);
    // The failed batch stops the sweep; no later batch is attempted.
    expect(calls).toBe(1);
  });

  it('fails on a probe that throws, after the others in flight finish', async () => {
    const scope = scopeOf(['10.0.0.0/24'], [443]);
    let inFlight = 0;
    let calls = 0;
    const sweep = runSweep(scope, {
      concurrency: 4,
      probeOptions: { reverseLookup: null },
      probe: async (target) => {
        calls += 1;
        if (calls === 3) throw new Error('bug');
        inFlight += 1;
        const result = await instant(target);
        inFlight -= 1;
        return result;
      },
      report: () => undefined,
    });
    await expect(sweep).rejects.toThrow('bug');
    expect(inFlight).toBe(0);
    expect(calls).toBeLessThan(10);
  });

  it('probes nothing when aborted before it starts, and still sends its last report', async () => {
    const controller = new AbortController();
    controller.abort();
    const probe = jest.fn(instant);
    const reports: SweepProgress[] = [];
    const summary = await runSweep(scopeOf(['10.0.0.0/30'], [443]), {
      concurrency: 2,
      signal: controller.signal,
      probeOptions: { reverseLookup: null },
      probe,
      report: (report) => {
        reports.push(report);
      },
    });
    expect(probe).not.toHaveBeenCalled();
    expect(summary).toMatchObject({ probed: 0, aborted: true });
    expect(reports).toEqual([expect.objectContaining({ probed: 0, probesTotal: 4, final: true, aborted: true, findings: [] })]);
  });

  it('looks up each address once however many of its ports answer', async () => {
    const scope = scopeOf(['10.0.0.1-10.0.0.2'], [443, 8443, 9443]);
    const lookups: string[] = [];
    await runSweep(scope, {
      concurrency: 6,
      probeOptions: {
        reverseLookup: (address) => {
          lookups.push(address);
          return Promise.resolve(null);
        },
      },
      probe: async (target, options) => {
        await options.reverseLookup?.(target.address);
        return { ...target, durationMs: 0, outcome: 'closed' };
      },
      report: () => undefined,
    });
    expect(lookups).toEqual(['10.0.0.1', '10.0.0.2']);
  });
});
