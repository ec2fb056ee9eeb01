import { appendFileSync } from 'node:fs';

/** One figure a benchmark measured, as `npm run bench` sums them up at the end (docs/performance.md). */
export interface BenchFigure {
  /** The row's name; the summary orders rows by it (bench/summary.ts). */
  row: string;
  measured: string;
  target: string;
  /** Whether the measured figure meets its target; null when it has none. */
  met: boolean | null;
}

/**
 * Adds a figure to BENCH_FIGURES_FILE (one JSON object per line) when `npm run bench` set it, so
 * the run can end with every row of the performance table in one place. A benchmark run on its
 * own prints its figures only.
 */
export function recordFigure(figure: BenchFigure): void {
  const file = process.env.BENCH_FIGURES_FILE;
  if (file) appendFileSync(file, `${JSON.stringify(figure)}\n`);
}
