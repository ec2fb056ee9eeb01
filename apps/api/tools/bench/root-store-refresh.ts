import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateKeyPair, mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { MaintenanceService } from '../../src/modules/maintenance/maintenance.service';
import { printFigure, runBenchmark, withInProcessApp } from './in-process';

/**
 * The root-store refresh figure (docs/performance.md): the `refresh-root-stores` task importing 400 roots across the four
 * stores from local (file://) sources shaped like CCADB's: the all-included-roots CSV and a PEM
 * report in CSV form (each PEM a quoted cell). The first run stores 400 new certificates; the
 * next ones are the nightly case, the same data again.
 */

const ROOTS = 400;
const RUNS = 3;

const COLUMNS = [
  'CA Owner',
  'Certificate Name',
  'SHA-256 Fingerprint',
  'Apple Status',
  'Apple Trust Bits',
  'Google Chrome Status',
  'Microsoft Status',
  'Microsoft EKUs',
  'Mozilla Status',
  'Mozilla Trust Bits',
];

/** Memberships spread like the real programs: most roots in two or three stores, some in one. */
function rowOf(root: MintedCertificate, index: number): string[] {
  const included = (inStore: boolean) => (inStore ? 'Included' : 'Not Included');
  const fingerprint = createHash('sha256').update(root.der).digest('hex').toUpperCase();
  return [
    `Owner ${index % 60}`,
    `Bench Root ${index}`,
    fingerprint,
    included(index % 4 !== 0),
    'serverAuth;clientAuth;emailProtection',
    included(index % 3 !== 0),
    included(index % 5 !== 1),
    'Server Authentication;Client Authentication',
    included(index % 2 === 0),
    'Websites;Email',
  ];
}

const csvLine = (cells: string[]) => cells.map((cell) => `"${cell.replace(/"/g, '""')}"`).join(',');

async function writeSources(directory: string): Promise<{ csvUrl: string; pemUrls: string[] }> {
  const roots: MintedCertificate[] = [];
  for (let index = 0; index < ROOTS; index += 1) {
    roots.push(
      await mintCertificate({
        subject: `CN=Bench Root ${index}, O=Owner ${index % 60}`,
        ca: true,
        keys: await generateKeyPair('ecdsa-p256'),
      }),
    );
  }
  const csvPath = join(directory, 'AllIncludedRootCertsCSV.csv');
  const pemPath = join(directory, 'AllCertificatePEMsCSVFormat.csv');
  await writeFile(csvPath, [csvLine(COLUMNS), ...roots.map((root, index) => csvLine(rowOf(root, index)))].join('\r\n'));
  await writeFile(
    pemPath,
    [
      csvLine(['Certificate Name', 'PEM Info']),
      ...roots.map((root, index) => csvLine([`Bench Root ${index}`, `'${root.pem.trim()}'`])),
    ].join('\r\n'),
  );
  return { csvUrl: pathToFileURL(csvPath).href, pemUrls: [pathToFileURL(pemPath).href] };
}

runBenchmark(async () => {
  const directory = await mkdtemp(join(tmpdir(), 'certkeeper-bench-ccadb-'));
  try {
    const sources = await writeSources(directory);
    await withInProcessApp('root-store-refresh', { rootStoreSources: { ...sources, fetchTimeoutMs: 60_000 } }, async (app) => {
      const maintenance = app.get(MaintenanceService);
      const times: number[] = [];
      let counts = '';
      for (let run = 0; run < RUNS; run += 1) {
        const started = performance.now();
        const result = await maintenance.runTask('refresh-root-stores');
        times.push(performance.now() - started);
        if (result.outcome !== 'succeeded') throw new Error(`refresh-root-stores: ${result.outcome}`);
        counts = JSON.stringify(result.counts);
      }
      process.stdout.write(`\nCertkeeper root-store refresh benchmark (${ROOTS} roots across four stores, file:// sources)\n`);
      printFigure('first refresh (every root a new certificate)', times.slice(0, 1), '<= 10 s');
      printFigure('nightly refresh (the same data again)', times.slice(1), '<= 10 s');
      process.stdout.write(`  counts: ${counts}\n`);
    });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});
