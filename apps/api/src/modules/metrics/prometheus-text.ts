/**
 * The Prometheus text exposition format (version 0.0.4), for the families written outside
 * prom-client: the per-endpoint and per-link ones. At 100,000 endpoints prom-client's per-series
 * `set()` and its serialiser take over a second each, and a scrape must stay under 1.5 s
 * (docs/api-contract.md section 12).
 */

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const LINES_PER_CHUNK = 10_000;

/**
 * One gauge family: `# HELP` (backslash and line feed escaped), `# TYPE`, then `name{labels} value`
 * per series, with label sets already in the format's syntax. Yields flat strings of a few
 * megabytes, built one at a time as the response takes them, so a scrape of 100,000 series never
 * holds the whole text.
 */
export function* gaugeFamily<T>(
  name: string,
  help: string,
  series: readonly T[],
  labels: (s: T) => string,
  value: (s: T) => string,
): Generator<string> {
  yield `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} gauge\n`;
  for (let start = 0; start < series.length; start += LINES_PER_CHUNK) {
    yield series
      .slice(start, start + LINES_PER_CHUNK)
      .map((s) => `${name}${labels(s)} ${value(s)}\n`)
      .join('');
  }
}
