import { limitHeapGrowth } from '@certkeeper/net/heap-growth';
import { randomUUID } from 'node:crypto';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { mintCertificate } from '@certkeeper/domain/testing';
import type { CheckedResult } from '../../src/modules/scanner-protocol/scanner-protocol.dto';
import { EndpointsService } from '../../src/modules/endpoints/endpoints.service';
import { FindingsService } from '../../src/modules/findings/findings.service';
import { RotationsService } from '../../src/modules/rotations/rotations.service';
import { ScanResultsService } from '../../src/modules/scanner-protocol/scan-results.service';
import { median } from './lib';
import { runBenchmark, withInProcessApp } from './in-process';

/**
 * Where the API's extra CPU of a rotating agent cycle goes (docs/performance.md, "Rotations and
 * renewals not deployed"; docs/decisions/0029): the ingest of bench:agent's cycles, in this
 * process, without HTTP, the agent or a TLS server, so its CPU (every thread of the process, the
 * garbage collector's included) is ingest's alone. `BENCH_ENDPOINTS` (default 2,000) host
 * endpoints post their results 250 at a time; each round is a cycle in which every endpoint
 * presents a fresh certificate, then a steady cycle presenting it again. Four variants run in
 * turns: as built, without recording rotations, without recomputing findings, and without both
 * (the steps left out in this process only, by replacing the service methods), so what each
 * step costs is measured rather than inferred from a profile. The first rounds warm the code and
 * are left out of the medians.
 */
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 2000);
const RESULTS_PER_POST = 250;
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const WARM_ROUNDS = 2;

interface Variant {
  label: string;
  recordsRotations: boolean;
  recomputesFindings: boolean;
}

const VARIANTS: Variant[] = [
  { label: 'as built', recordsRotations: true, recomputesFindings: true },
  { label: 'rotations not recorded', recordsRotations: false, recomputesFindings: true },
  { label: 'findings not recomputed', recordsRotations: true, recomputesFindings: false },
  { label: 'neither', recordsRotations: false, recomputesFindings: false },
];

/** CPU ms of this process so far, all threads. */
function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** Full (mark-compact) collections so far: the steps whose cost a cycle pays in lumps. */
let fullCollections = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
      fullCollections += 1;
  }
}).observe({ entryTypes: ['gc'] });

async function main(): Promise<void> {
  // As the API's main does: the collector's pace is part of what is measured.
  limitHeapGrowth();
  await withInProcessApp('rotation-cost', {}, async (app) => {
    const endpoints = app.get(EndpointsService);
    const scanResults = app.get(ScanResultsService);
    const dataSource = app.get(DataSource);
    await endpoints.bulkCreate(
      Array.from({ length: ENDPOINTS }, (_, i) => ({
        name: `bench-${i}`,
        dnsName: `bench-${i}.example.test`,
        ipAddress: '127.0.0.1',
        port: 443,
      })),
      { actor: 'bench', actorId: null, requestId: null },
    );
    const ids = (await dataSource.query<{ id: string }[]>('SELECT id FROM endpoints ORDER BY name')).map((row) => row.id);
    const [{ id: scannerId }] = await dataSource.query<{ id: string }[]>('SELECT id FROM scanners WHERE is_default');

    /** A cycle in which every endpoint presents `pem`; answers its CPU ms per result and its full collections. */
    const cycle = async (pem: string): Promise<{ ms: number; fullCollections: number }> => {
      const started = cpuMs();
      const collectionsBefore = fullCollections;
      for (let start = 0; start < ids.length; start += RESULTS_PER_POST) {
        const checked: CheckedResult[] = ids.slice(start, start + RESULTS_PER_POST).map((endpointId) => ({
          valid: true,
          result: {
            type: 'host',
            resultId: randomUUID(),
            endpointId,
            scannedAt: new Date().toISOString(),
            success: true,
            error: null,
            resolvedIp: '127.0.0.1',
            tlsVersion: 'TLSv1.3',
            cipherSuite: 'TLS_AES_256_GCM_SHA384',
            authorized: false,
            authorizationError: 'DEPTH_ZERO_SELF_SIGNED_CERT',
            chain: [pem],
            tlsProfile: null,
          },
        }));
        const outcomes = await scanResults.ingestResults(scannerId, checked);
        const refused = outcomes.find((outcome) => outcome.status !== 'accepted');
        if (refused) throw new Error(`a result was not accepted: ${JSON.stringify(refused)}`);
      }
      // The observer hears of a collection on a later turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      return { ms: (cpuMs() - started) / ids.length, fullCollections: fullCollections - collectionsBefore };
    };
    const freshCertificate = async () => (await mintCertificate({ subject: 'CN=bench.example.test', sans: ['*.example.test'] })).pem;

    const rotations = app.get(RotationsService);
    const findings = app.get(FindingsService);
    const record = rotations.record.bind(rotations);
    const recompute = findings.recompute.bind(findings);
    const use = (variant: Variant) => {
      rotations.record = variant.recordsRotations ? record : () => Promise.resolve();
      findings.recompute = variant.recomputesFindings ? recompute : () => Promise.resolve(0);
    };

    let pem = await freshCertificate();
    await cycle(pem);
    await cycle(pem);
    const figures = new Map(VARIANTS.map((variant) => [variant, { rotating: [] as number[], steady: [] as number[], collections: 0 }]));
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const variant of VARIANTS) {
        use(variant);
        pem = await freshCertificate();
        const rotating = await cycle(pem);
        const steady = await cycle(pem);
        if (round < WARM_ROUNDS) continue;
        const figure = figures.get(variant)!;
        figure.rotating.push(rotating.ms);
        figure.steady.push(steady.ms);
        figure.collections += rotating.fullCollections;
      }
    }
    use(VARIANTS[0]);

    const measured = ROUNDS - WARM_ROUNDS;
    const steady = median([...figures.values()].flatMap((figure) => figure.steady));
    process.stdout.write(
      `\nAPI CPU per result of ingest alone, in-process (${ENDPOINTS} host endpoints, ${RESULTS_PER_POST} results per post, medians of ${measured} rounds in turns)\n`,
    );
    process.stdout.write(`  ${'steady cycle (every variant)'.padEnd(44)} ${steady.toFixed(3)} ms\n`);
    for (const [variant, figure] of figures) {
      const rotating = median(figure.rotating);
      process.stdout.write(
        `  ${`rotating cycle, ${variant.label}`.padEnd(44)} ${rotating.toFixed(3)} ms   (+${(rotating - steady).toFixed(3)} ms on steady; ${(figure.collections / measured).toFixed(1)} full collections a cycle)\n`,
      );
    }
  });
}

runBenchmark(main);
