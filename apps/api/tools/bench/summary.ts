import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { BenchFigure } from '@certkeeper/net/testing';

/**
 * The end of `npm run bench`: every figure the benchmarks recorded (BENCH_FIGURES_FILE), the
 * performance table of docs/performance.md in one place, each beside its target. Rows no
 * benchmark recorded are listed as missing, so a broken benchmark cannot hide a row.
 */
const EXPECTED_ROWS = [
  /^Agent cycle/,
  /^CPU per ingested host result/,
  /^GET \/endpoints\?limit=50,/,
  /^GET \/endpoints\?limit=50 \(offset 50000\)/,
  /^GET \/endpoints\?limit=50&type=host&tag=env:prod/,
  /^GET \/certificates\/expiring/,
  /^GET \/certificates\/active/,
  /^GET \/search/,
  /^GET \/endpoints\?limit=50 \(offset 50000\), \d+ rows, right after a bulk import/,
  /^GET \/endpoints\?limit=50&type=host&tag=env:prod, \d+ rows, right after a bulk import/,
  /^npm start to healthy, first start/,
  /^npm start to healthy, later start/,
  /^API peak memory, inventory/,
  /^API peak memory, calendar/,
  /^TLS profile, legacy server/,
  /^refresh-renewal-info with nothing due/,
  /^Renewal-information requests per certificate per Retry-After window/,
  /^Alert job decision time, lifetimeAware on \/ off/,
  // docs/api-contract.md section 16.
  /^Agent cycle, \d+ hosts, every host rotating/,
  /^GET \/certificates\/active\?limit=500 \(with supersededBy\)/,
  /^GET \/endpoints\?limit=50&superseded=true/,
  /^GET \/dashboard\?scope=all \(counts superseded endpoints\)/,
  /^channels: deliveries per second/,
  /^channels: API peak memory/,
];

function main(): void {
  const file = process.env.BENCH_FIGURES_FILE;
  if (!file) throw new Error('BENCH_FIGURES_FILE is not set: run `npm run bench`.');
  const figures = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as BenchFigure);
  const width = Math.max(...figures.map((figure) => figure.row.length), 40);
  const verdict = (met: boolean | null) => (met === null ? '' : met ? 'met' : 'MISSED');
  process.stdout.write(
    `\nCertkeeper performance summary (${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, load average ${loadavg()[0].toFixed(1)} at the end)\n`,
  );
  for (const figure of figures) {
    process.stdout.write(`  ${figure.row.padEnd(width)}  ${figure.measured}   target ${figure.target}   ${verdict(figure.met)}\n`);
  }
  const missing = EXPECTED_ROWS.filter((pattern) => !figures.some((figure) => pattern.test(figure.row)));
  for (const pattern of missing) process.stdout.write(`  MISSING: no benchmark recorded ${pattern.source}\n`);
  if (missing.length > 0) process.exitCode = 1;
}

main();
