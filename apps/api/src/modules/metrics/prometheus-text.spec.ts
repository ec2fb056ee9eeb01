import { ChunkedText, gaugeHeader } from './prometheus-text';

describe('gaugeHeader', () => {
  it('writes HELP with backslashes and line feeds escaped, then TYPE', () => {
    expect(gaugeHeader('x_seconds', 'Help with a \\ and a\nline feed.')).toBe(
      '# HELP x_seconds Help with a \\\\ and a\\nline feed.\n# TYPE x_seconds gauge\n',
    );
  });
});

describe('ChunkedText', () => {
  it('hands the pieces over in order, in chunks of 10,000, and the rest at the end', async () => {
    const chunks: string[] = [];
    const text = new ChunkedText((chunk) => {
      chunks.push(chunk);
      return undefined;
    });
    for (let i = 0; i < 25_001; i += 1) expect(text.add(`x{i="${i}"} ${i / 2}\n`)).toBeUndefined();
    expect(chunks.map((chunk) => chunk.split('\n').length - 1)).toEqual([10_000, 10_000]);
    await text.end();
    expect(chunks.map((chunk) => chunk.split('\n').length - 1)).toEqual([10_000, 10_000, 5_001]);
    const all = chunks.join('');
    expect(all.startsWith('x{i="0"} 0\n')).toBe(true);
    expect(all).toContain('\nx{i="9999"} 4999.5\nx{i="10000"} 5000\n');
    expect(all.endsWith('x{i="25000"} 12500\n')).toBe(true);
  });

  it('hands nothing over for nothing added', async () => {
    const chunks: string[] = [];
    const text = new ChunkedText((chunk) => {
      chunks.push(chunk);
      return undefined;
    });
    await text.end();
    expect(chunks).toEqual([]);
  });

  it("answers the sink's wait to every piece added while it is pending, and nothing once it settled", async () => {
    let release!: () => void;
    const drained = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const text = new ChunkedText(() => (++calls === 1 ? drained : undefined));
    for (let i = 0; i < 9_999; i += 1) expect(text.add('line\n')).toBeUndefined();
    const wait = text.add('the 10,000th\n');
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
    for (let i = 0; i < 9_999; i += 1) void text.add('line\n');
    await expect(text.add('the 10,000th\n')).rejects.toThrow('gone');
    await expect(text.add('one more\n')).rejects.toThrow('gone');
    await expect(text.end()).rejects.toThrow('gone');
  });
});
