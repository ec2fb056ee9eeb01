/**
 * The Prometheus text exposition format (version 0.0.4), for the families written outside
 * prom-client: the per-endpoint and per-link ones. At 100,000 endpoints prom-client's per-series
 * `set()` and its serialiser take over a second each, and a scrape must stay under 1.5 s
 * (docs/api-contract.md section 12).
 */

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A gauge family's `# HELP` (backslash and line feed escaped) and `# TYPE` lines. */
export function gaugeHeader(name: string, help: string): string {
  return `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} gauge\n`;
}

/**
 * Where the text goes: it returns a promise when it cannot take more for now (the client reads
 * slowly), settled when it can, and rejected when it never will (the client went away).
 */
export type TextSink = (chunk: string) => Promise<void> | undefined;

/** About 2 MB of text: a few thousand sample lines. */
const CHUNK_CHARACTERS = 2 * 1024 * 1024;

/**
 * Gathers the exposition's pieces (sample lines, family headers, chunks kept for later) and hands
 * them to the sink as flat strings of at least CHUNK_CHARACTERS: one write per chunk rather than
 * per line, and never more than a chunk held. Each `add` answers the sink's wait while one is
 * pending, so whoever produces the lines can stop until the client catches up.
 */
export class ChunkedText {
  private pieces: string[] = [];
  private characters = 0;
  private waiting: Promise<void> | undefined;

  constructor(private readonly sink: TextSink) {}

  add(piece: string): Promise<void> | undefined {
    this.pieces.push(piece);
    this.characters += piece.length;
    if (this.characters >= CHUNK_CHARACTERS) this.flush();
    return this.waiting;
  }

  /** Hands over what is gathered, and settles when the sink has taken all of it. */
  async end(): Promise<void> {
    this.flush();
    await this.waiting;
  }

  private flush(): void {
    if (this.pieces.length === 0) return;
    const wait = this.sink(this.pieces.join(''));
    this.pieces = [];
    this.characters = 0;
    if (wait === undefined) return;
    // Settled once the sink took this chunk and any still pending before it; a refusal stays, so
    // every later add and the end answer it too.
    const waiting: Promise<void> = Promise.all([this.waiting, wait]).then(() => {
      if (this.waiting === waiting) this.waiting = undefined;
    });
    this.waiting = waiting;
  }
}
