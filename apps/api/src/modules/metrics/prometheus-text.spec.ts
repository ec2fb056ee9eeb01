import { ChunkedText, gaugeHeader } from './prometheus-text';

describe('gaugeHeader', () => {
  it('writes HELP with backslashes and line feeds escaped, then TYPE', () => {
    expect(gaugeHeader('x_seconds', 'Help with a \\ and a\nline feed.')).toBe(
      '# HELP x_seconds Help with a \\\\ and a\\nline feed.\n# TYPE x_seconds gauge\n',
    );
  });
});

describe('ChunkedText', () => {
  // Lines of 128 characters: 16,384 of them make the 2 MiB of a chunk.
  const line = (i: number) => `x{i="${String(i).padStart(8, '0')}"} ${'9'.repeat(111)}\n`;
  const LINES_PER_CHUNK = (2 * 1024 * 1024) / 128;

  const collecting = () => {
    const chunks: string[] = [];
    const text = new ChunkedText((chunk) => {
      chunks.push(chunk);
      return undefined;
    });
    return { chunks, text };
  };

  it('hands the pieces over in order, in chunks of 2 MiB, and the rest at the end', async () => {
    const { chunks, text } = collecting();
    expect(line(0)).toHaveLength(128);
    const waits = Array.from({ length: 2 * LINES_PER_CHUNK + 5 }, (_, i) => text.add(line(i)));
    expect(waits.every((wait) => wait === undefined)).toBe(true);
    expect(chunks.map((chunk) => chunk.length)).toEqual([2 * 1024 * 1024, 2 * 1024 * 1024]);
    await text.end();
    expect(chunks.map((chunk) => chunk.length / 128)).toEqual([LINES_PER_CHUNK, LINES_PER_CHUNK, 5]);
    const all = chunks.join('');
    expect(all.startsWith(line(0))).toBe(true);
    expect(all).toContain(line(LINES_PER_CHUNK - 1) + line(LINES_PER_CHUNK));
    expect(all.endsWith(line(2 * LINES_PER_CHUNK + 4))).toBe(true);
  });

  it('hands a piece of a chunk or more over at once', async () => {
    const { chunks, text } = collecting();
    void text.add('# HELP\n');
    void text.add('y'.repeat(3 * 1024 * 1024));
    expect(chunks.map((chunk) => chunk.length)).toEqual([7 + 3 * 1024 * 1024]);
    await text.end();
    expect(chunks).toHaveLength(1);
  });

  it('hands nothing over for nothing added', async () => {
    const { chunks, text } = collecting();
    await text.end();
    expect(chunks).toEqual([]);
  });

  it("answers the sink's wait to every piece added while it is pending, and nothing once it settled", async () => {
    let release!: () => void;
    const drained = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const text = new ChunkedText(() => (++calls === 1 ? drained : undefined));
    const waits = Array.from({ length: LINES_PER_CHUNK - 1 }, (_, i) => text.add(line(i)));
    expect(waits.every((wait) => wait === undefined)).toBe(true);
    const wait = text.add(line(LINES_PER_CHUNK - 1));
    expect(wait).toBeDefined();
    expect(text.add('one more\n')).toBe(wait);

    let ended = false;
    const end = text.end().then(() => (ended = true));
    await Promise.resolve();
    expect(ended).toBe(false); // the first chunk is not taken yet
    release();
    await end;
    expect(calls).toBe(2);
    expect(text.add('after\n')).toBeUndefined();
  });

  it("answers the sink's refusal (the client went away) to every later add and to the end", async () => {
    const text = new ChunkedText(() => Promise.reject(new Error('gone')));
    for (let i = 0; i < LINES_PER_CHUNK - 1; i += 1) void text.add(line(i));
    await expect(text.add(line(LINES_PER_CHUNK - 1))).rejects.toThrow('gone');
    await expect(text.add('one more\n')).rejects.toThrow('gone');
    await expect(text.end()).rejects.toThrow('gone');
  });
});
