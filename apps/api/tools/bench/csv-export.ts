import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { withSeededApi } from './inventory-seed';
import { type ApiProcess, median, memoryOf } from './lib';

/**
 * The CSV figure (docs/performance.md): a full CSV export of 100,000 endpoints (`GET /api/v1/endpoints` with
 * `Accept: text/csv`), read to the end as a client would, timed (median of RUNS), and the API
 * process's peak resident memory rise during it. The peak is reset before each run
 * (`/proc/<pid>/clear_refs` 5, Linux) so VmHWM is the peak of that run; RSS is also sampled every
 * 10 ms as a cross-check. No assertions: the figures are printed beside the targets.
 */

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const RUNS = 5;

async function resetPeak(pid: number): Promise<boolean> {
  return writeFile(`/proc/${pid}/clear_refs`, '5').then(
    () => true,
    () => false,
  );
}

async function exportOnce(
  api: ApiProcess,
  token: string,
): Promise<{ ms: number; rows: number; bytes: number; rise: number; sampledRise: number }> {
  const peakReset = await resetPeak(api.pid);
  const before = await memoryOf(api.pid);
  let sampledPeak = before.rss;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      sampledPeak = Math.max(sampledPeak, (await memoryOf(api.pid)).rss);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const begun = performance.now();
  const response = await fetch(`${api.baseUrl}/api/v1/endpoints`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/csv' },
    signal: AbortSignal.timeout(120_000),
  });
  if (response.status !== 200) throw new Error(`export answered ${response.status}: ${await response.text()}`);
  let bytes = 0;
  let lineEnds = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) lineEnds += 1;
  }
  const ms = performance.now() - begun;
  sampling = false;
  await sampler;
  const after = await memoryOf(api.pid);
  const rise = peakReset ? after.peak - before.rss : NaN;
  // Seeded names and notes hold no line breaks: one line per row after the header.
  return { ms, rows: lineEnds - 1, bytes, rise, sampledRise: sampledPeak - before.rss };
}

async function main(): Promise<void> {
  await withSeededApi('csv-export', ROWS, async (api, token) => {
    await exportOnce(api, token); // warm-up: JIT, the database's caches
    const runs: Awaited<ReturnType<typeof exportOnce>>[] = [];
    for (let run = 0; run < RUNS; run += 1) runs.push(await exportOnce(api, token));
    if (runs.some((r) => r.rows !== runs[0].rows)) throw new Error(`row counts differ: ${runs.map((r) => r.rows).join(', ')}`);
    const hwmSupported = !Number.isNaN(runs[0].rise);
    process.stdout.write(
      `\nCertkeeper CSV export benchmark (${runs[0].rows} endpoint rows, ${(runs[0].bytes / 1024 / 1024).toFixed(1)} MB of CSV, ${RUNS} runs after a warm-up; ` +
        `${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)})\n`,
    );
    process.stdout.write(
      `  ${'GET /endpoints (Accept: text/csv), whole body'.padEnd(50)} median ${(median(runs.map((r) => r.ms)) / 1000).toFixed(2)} s (target <= 2 s)   [${runs.map((r) => (r.ms / 1000).toFixed(2)).join(', ')}]\n`,
    );
    if (hwmSupported) {
      process.stdout.write(
        `  ${'API peak RSS rise during an export (VmHWM)'.padEnd(50)} max ${Math.max(...runs.map((r) => r.rise)).toFixed(1)} MB (target < 50 MB)   [${runs.map((r) => r.rise.toFixed(1)).join(', ')}]\n`,
      );
    }
    process.stdout.write(
      `  ${'API RSS rise, sampled every 10 ms'.padEnd(50)} max ${Math.max(...runs.map((r) => r.sampledRise)).toFixed(1)} MB${hwmSupported ? '' : ' (target < 50 MB)'}   [${runs.map((r) => r.sampledRise.toFixed(1)).join(', ')}]\n`,
    );
    const memory = await memoryOf(api.pid);
    process.stdout.write(`  ${'API resident memory after the exports'.padEnd(50)} ${memory.rss.toFixed(0)} MB\n`);
    await readFile(`/proc/${api.pid}/status`, 'utf8'); // the API is still alive
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
