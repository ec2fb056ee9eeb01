import { open } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';

const MiB = 1024 * 1024;

export interface FetchLimits {
  /** Deadline of the whole download, redirects included. */
  timeoutMs: number;
  /** Deadline of each TCP connect. */
  connectTimeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Cancels the download (a sibling download failed, so this one is no longer needed). */
  signal?: AbortSignal;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = { timeoutMs: 5 * 60_000, connectTimeoutMs: 30_000, maxBytes: 64 * MiB, maxRedirects: 3 };

/** A source could not be read whole. The message names the source without credentials. */
export class SourceFetchError extends Error {
  override readonly name = 'SourceFetchError';
}

// Query parameters that look like credentials (API tokens, pre-signed URL signatures).
const SECRET_PARAMETER = /token|key|secret|pass|sig|auth|credential/i;

/** The address as it may appear in logs, messages and the stores' `source`: no user info, no secret-looking query values. */
export function describeSource(source: string): string {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    return 'an unreadable address';
  }
  url.username = '';
  url.password = '';
  for (const name of new Set(url.searchParams.keys())) {
    if (SECRET_PARAMETER.test(name)) url.searchParams.set(name, 'redacted');
  }
  return url.href;
}

/**
 * Downloads every source, all or nothing: the first failure cancels the others and is thrown.
 * Texts come back in the order of `sources`.
 */
export async function fetchSourceTexts(sources: string[], limits: FetchLimits = DEFAULT_FETCH_LIMITS): Promise<string[]> {
  const cancel = new AbortController();
  const signal = limits.signal ? AbortSignal.any([limits.signal, cancel.signal]) : cancel.signal;
  try {
    return await Promise.all(sources.map((source) => fetchSourceText(source, { ...limits, signal })));
  } finally {
    cancel.abort();
  }
}

/**
 * Reads an http:, https: or file: source whole, as UTF-8 text. A non-2xx answer, a timeout, a body
 * over the size cap, a body shorter than its Content-Length or a connection closed mid-body all
 * throw SourceFetchError: a partial report must never pass for a whole one.
 */
export async function fetchSourceText(source: string, limits: FetchLimits = DEFAULT_FETCH_LIMITS): Promise<string> {
  const name = describeSource(source);
  try {
    const url = new URL(source);
    if (!['http:', 'https:', 'file:'].includes(url.protocol)) throw new SourceFetchError('only http, https and file addresses are read');
    const bytes = url.protocol === 'file:' ? await readFileSource(url, limits) : await downloadHttp(url, limits);
    return bytes.toString('utf8');
  } catch (error) {
    const reason = error instanceof SourceFetchError ? error.message : 'it is not a usable address';
    throw new SourceFetchError(`Could not read ${name}: ${reason}`);
  }
}

async function readFileSource(url: URL, limits: FetchLimits): Promise<Buffer> {
  const handle = await open(fileURLToPath(url), 'r').catch((error: NodeJS.ErrnoException) => {
    throw new SourceFetchError(error.code === 'ENOENT' ? 'no such file' : `the file cannot be opened (${error.code ?? error.message})`);
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new SourceFetchError('not a regular file');
    if (info.size > limits.maxBytes) throw new SourceFetchError(tooLarge(limits));
    const deadline = AbortSignal.timeout(limits.timeoutMs);
    return await handle.readFile({ signal: limits.signal ? AbortSignal.any([limits.signal, deadline]) : deadline }).catch(() => {
      throw new SourceFetchError(limits.signal?.aborted ? 'cancelled' : `not read within ${seconds(limits.timeoutMs)}`);
    });
  } finally {
    await handle.close();
  }
}

async function downloadHttp(start: URL, limits: FetchLimits): Promise<Buffer> {
  const deadline = Date.now() + limits.timeoutMs;
  let url = start;
  for (let redirects = 0; ; redirects += 1) {
    const hop = await requestOnce(url, limits, deadline);
    if ('body' in hop) return hop.body;
    const target = hop.redirectTo;
    if (redirects >= limits.maxRedirects) throw new SourceFetchError(`more than ${limits.maxRedirects} redirects`);
    // Never to a file (a server must not make us read local files), never down from https.
    if (target.protocol !== 'http:' && target.protocol !== 'https:')
      throw new SourceFetchError(`redirected to a ${target.protocol} address`);
    if (url.protocol === 'https:' && target.protocol === 'http:') throw new SourceFetchError('redirected from https to plain http');
    url = target;
  }
}

type Hop = { body: Buffer } | { redirectTo: URL };

/** One GET: a whole 2xx body, or where a redirect points. Rejects with SourceFetchError. */
function requestOnce(url: URL, limits: FetchLimits, deadline: number): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // A fresh connection per download: the connect deadline then always measures a real connect.
    const request = send(url, {
      agent: false,
      headers: { accept: 'text/csv, text/plain, */*', 'user-agent': 'Certkeeper root-store refresh' },
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(wholeTimer);
      limits.signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const fail = (reason: string) =>
      settle(() => {
        request.destroy();
        reject(new SourceFetchError(reason));
      });
    const onAbort = () => fail('cancelled');

    const remaining = Math.max(0, deadline - Date.now());
    const wholeTimer = setTimeout(() => fail(`no complete answer within ${seconds(limits.timeoutMs)}`), remaining);
    const connectTimer = setTimeout(
      () => fail(`could not connect within ${seconds(limits.connectTimeoutMs)}`),
      Math.min(remaining, limits.connectTimeoutMs),
    );
    if (limits.signal?.aborted) onAbort();
    limits.signal?.addEventListener('abort', onAbort, { once: true });

    request.on('socket', (socket) => {
      const connected = () => clearTimeout(connectTimer);
      if (!socket.connecting) connected();
      // TLS sockets report the TCP connect as 'connect' too; 'secureConnect' is the fallback.
      socket.once('connect', connected).once('secureConnect', connected);
    });
    request.on('error', (error: NodeJS.ErrnoException) =>
      fail(error.code === 'ENOTFOUND' ? `host ${url.hostname} not found` : error.message),
    );
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location !== undefined) {
        response.resume();
        const target = URL.canParse(location, url.href) ? new URL(location, url) : null;
        if (target === null) fail('redirected to an unreadable address');
        else settle(() => resolve({ redirectTo: target }));
        return;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        fail(`answered HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`);
        return;
      }
      readBody(response, limits, fail, (body) => settle(() => resolve({ body })));
    });
    request.end();
  });
}

function readBody(response: IncomingMessage, limits: FetchLimits, fail: (reason: string) => void, done: (body: Buffer) => void): void {
  const header = response.headers['content-length'];
  const declared = header !== undefined && /^\d+$/.test(header) ? Number(header) : null;
  if (declared !== null && declared > limits.maxBytes) {
    fail(tooLarge(limits));
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  const cutShort = () => `the body was cut short after ${received} of ${declared ?? 'an unknown number of'} bytes`;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.maxBytes) fail(tooLarge(limits));
    else chunks.push(chunk);
  });
  response.on('end', () => {
    if (!response.complete || (declared !== null && received !== declared)) fail(cutShort());
    else done(Buffer.concat(chunks));
  });
  // A connection closed mid-body ends here, not at 'end'; after a whole body this changes nothing.
  response.on('error', () => fail(cutShort()));
  response.on('close', () => fail(cutShort()));
}

function tooLarge(limits: FetchLimits): string {
  return `larger than the ${limits.maxBytes / MiB} MiB limit`;
}

function seconds(milliseconds: number): string {
  return `${Math.round(milliseconds / 100) / 10} s`;
}
