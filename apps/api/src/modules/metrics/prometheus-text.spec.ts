import { gaugeFamily } from './prometheus-text';

describe('gaugeFamily', () => {
  it('writes HELP (escaped) and TYPE, then one line per series in chunks of 10,000 lines', () => {
    const series = Array.from({ length: 25_001 }, (_, i) => ({ labels: `{i="${i}"}`, value: String(i / 2) }));
    const chunks = [
      ...gaugeFamily(
        'x_seconds',
        'Help with a \\ and a\nline feed.',
        series,
        (s) => s.labels,
        (s) => s.value,
      ),
    ];
    expect(chunks).toHaveLength(1 + 3);
    expect(chunks[0]).toBe('# HELP x_seconds Help with a \\\\ and a\\nline feed.\n# TYPE x_seconds gauge\n');
    expect(chunks.slice(1).map((chunk) => chunk.split('\n').length - 1)).toEqual([10_000, 10_000, 5_001]);
    const text = chunks.join('');
    expect(text.endsWith('x_seconds{i="25000"} 12500\n')).toBe(true);
    expect(text).toContain('\nx_seconds{i="9999"} 4999.5\nx_seconds{i="10000"} 5000\n');
  });

  it('writes only the header for a family without series', () => {
    expect([
      ...gaugeFamily(
        'y',
        'Nothing yet.',
        [],
        () => '',
        () => '',
      ),
    ]).toEqual(['# HELP y Nothing yet.\n# TYPE y gauge\n']);
  });
});
