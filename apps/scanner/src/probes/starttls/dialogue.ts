import type { Socket } from 'node:net';
import { StarttlsError, type UpgradeOptions } from './starttls';

/** Longest line of a text dialogue, terminator included (RFC 5321 allows 512; servers' banners run longer). */
export const MAX_LINE_BYTES = 8192;
/** Most lines in one multi-line reply (an EHLO reply, a CAPA list). */
export const MAX_REPLY_LINES = 100;

/** Socket errors that mean the server hung up: a reset, or our write meeting a closed connection. */
const HUNG_UP = new Set(['ECONNRESET', 'EPIPE']);

/** "10 s" for whole seconds, "300 ms" otherwise: the deadline as the scan's error shows it. */
export function formatDeadline(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The server's words as an error may quote them: printable, one line, bounded. */
export function quote(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/**
 * Reads a plain-text dialogue off a socket in paused mode with socket.read(), so that nothing is
 * consumed that the step does not need: whatever arrived beyond the last line read is handed back
 * with socket.unshift() by release(), where the TLS layer finds it (tls.connect({ socket }) reads a
 * socket's buffered bytes first).
 */
export class Dialogue {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(
    private readonly socket: Socket,
    private readonly options: UpgradeOptions,
  ) {
    socket.pause();
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /**
   * One line without its CRLF (or bare LF). `what` names the step for errors: "greeting",
   * "reply to EHLO". The deadline runs from the call, so a server dripping a byte at a time
   * cannot hold the probe longer than one read deadline per line.
   */
  async readLine(what: string, deadline = Date.now() + this.options.readTimeoutMs): Promise<string> {
    for (;;) {
      const end = this.buffered.indexOf(0x0a);
      if (end >= 0) {
        if (end + 1 > MAX_LINE_BYTES) throw this.overlong(what);
        const line = this.buffered.subarray(0, end).toString('utf8').replace(/\r$/, '');
        this.buffered = this.buffered.subarray(end + 1);
        return line;
      }
      if (this.buffered.length >= MAX_LINE_BYTES) throw this.overlong(what);
      this.append(await this.nextChunk(what, deadline));
    }
  }

  /**
   * Bytes until `complete(text)` returns the length of what the step needs (a byte offset in
   * the text read so far), at most `cap` bytes: for XMPP, whose elements are not lines.
   */
  async readUntil(what: string, cap: number, complete: (text: string) => number | null): Promise<string> {
    const deadline = Date.now() + this.options.readTimeoutMs;
    for (;;) {
      const text = this.buffered.toString('latin1');
      const end = complete(text);
      if (end !== null) {
        const taken = this.buffered.subarray(0, end).toString('utf8');
        this.buffered = this.buffered.subarray(end);
        return taken;
      }
      if (this.buffered.length >= cap) throw new StarttlsError(`${what} longer than ${cap} bytes`);
      this.append(await this.nextChunk(what, deadline));
    }
  }

  /** Hands unread bytes back to the socket and leaves it paused, for the TLS layer. */
  release(): void {
    if (this.buffered.length > 0) this.socket.unshift(this.buffered);
    this.buffered = Buffer.alloc(0);
    this.socket.pause();
  }

  private append(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
  }

  private overlong(what: string): StarttlsError {
    return new StarttlsError(`${what}: line longer than ${MAX_LINE_BYTES} bytes`);
  }

  private nextChunk(what: string, deadline: number): Promise<Buffer> {
    const socket = this.socket;
    const ready = socket.read() as Buffer | null;
    if (ready !== null) return Promise.resolve(ready);
    if (socket.destroyed || socket.readableEnded) {
      return Promise.reject(new StarttlsError(`server closed the connection before the ${what}`));
    }
    return new Promise<Buffer>((resolve, reject) => {
      const finish = (error: Error | null, chunk?: Buffer) => {
        clearTimeout(timer);
        socket.off('readable', onReadable);
        socket.off('end', onEnd);
        socket.off('close', onEnd);
        socket.off('error', onError);
        if (error) reject(error);
        else resolve(chunk as Buffer);
      };
      const onReadable = () => {
        const chunk = socket.read() as Buffer | null;
        if (chunk !== null) finish(null, chunk);
      };
      const onEnd = () => finish(new StarttlsError(`server closed the connection before the ${what}`));
      // A server that closes with our command unread resets the connection: it hung up all the same.
      const onError = (error: NodeJS.ErrnoException) =>
        finish(
          new StarttlsError(
            HUNG_UP.has(error.code ?? '')
              ? `server closed the connection before the ${what}`
              : `connection failed before the ${what}: ${error.message}`,
          ),
        );
      const timer = setTimeout(
        () => finish(new StarttlsError(`no ${what} within ${formatDeadline(this.options.readTimeoutMs)}`)),
        Math.max(0, deadline - Date.now()),
      );
      socket.on('readable', onReadable);
      socket.on('end', onEnd);
      socket.on('close', onEnd);
      socket.on('error', onError);
    });
  }
}

/** One reply of a protocol whose replies are `ddd-text` lines closed by a `ddd text` line (SMTP, FTP). */
export interface CodedReply {
  code: number;
  lines: string[];
}

/**
 * An SMTP (RFC 5321 4.2.1) or FTP (RFC 959 4.2) reply: continuation lines `250-...`, the last
 * `250 ...`. FTP lets continuation lines between `220-` and `220 ` carry any text, so only the
 * closing line must repeat the code; SMTP's continuation lines all carry it, which this also reads.
 */
export async function readCodedReply(dialogue: Dialogue, what: string, deadlineMs: number): Promise<CodedReply> {
  const deadline = Date.now() + deadlineMs;
  const lines: string[] = [];
  let code: string | null = null;
  for (;;) {
    if (lines.length >= MAX_REPLY_LINES) throw new StarttlsError(`${what}: more than ${MAX_REPLY_LINES} lines`);
    const line = await dialogue.readLine(what, deadline);
    const match = /^(\d{3})([ -]|$)(.*)$/.exec(line);
    if (code === null) {
      if (!match) throw new StarttlsError(`malformed ${what}: ${quote(line)}`);
      code = match[1];
    }
    if (match && match[1] === code && match[2] !== '-') {
      lines.push(match[3]);
      return { code: Number(code), lines };
    }
    lines.push(match && match[1] === code ? match[3] : line);
  }
}

/** "454 TLS not available" for errors. */
export function describeReply(reply: CodedReply): string {
  return quote(`${reply.code} ${reply.lines[reply.lines.length - 1] ?? ''}`);
}
