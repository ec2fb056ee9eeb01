import { createHash } from 'node:crypto';
import { type ClientRequest, type IncomingMessage, request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { OutboundGuard, OutboundRefusedError } from '@certkeeper/net';

export interface SamlFetchOptions {
  /** Largest body accepted, counted while it streams in. Default 16 MiB. */
  maxBytes?: number;
  /** The whole fetch, redirects and body included. Default 15 s. */
  timeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
  signal?: AbortSignal;
  /** OUTBOUND_DENY, applied to every hop. Default: the default deny list. */
  guard?: OutboundGuard;
}

export type SamlFetchResult =
  | {
      ok: true;
      finalUrl: string;
      /** The address the document came from: the remote end of the last hop's connection. */
      remoteAddress: string | null;
      document: string;
      digest: string;
      bytes: number;
    }
  | { ok: false; error: string; finalUrl: string | null };

type FetchOptions = SamlFetchOptions & { insecureTls?: boolean };

interface FetchSettings {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  insecureTls: boolean;
  guard: OutboundGuard;
}

/** What one request gave: the body, where to go next, or why it failed. */
type Attempt =
  | { kind: 'body'; body: Buffer; remoteAddress: string | null }
  | { kind: 'redirect'; location: string | undefined }
  | { kind: 'failed'; error: string };

const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_REDIRECTS = 5;
// setTimeout fires at once for anything longer (about 24.8 days).
const LONGEST_TIMER_MS = 2 ** 31 - 1;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const FETCHABLE_PROTOCOLS = new Set(['http:', 'https:']);
const REQUEST_HEADERS = {
  accept: 'application/samlmetadata+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1',
  // The byte limit is on what the document weighs, so nothing is accepted compressed.
  'accept-encoding': 'identity',
  'user-agent': 'Certkeeper-Scanner',
};

/**
 * Fetches a metadata document over http or https within a byte limit and a deadline for the whole
 * fetch. Never throws for network failures: the result says what failed and at which URL.
 * Redirects are followed by hand, so each target's scheme is checked (http and https only, and
 * never from https down to http: metadata authenticity rests on TLS when it is not signed).
 * Bytes are counted as they arrive and the connection is dropped past the limit, whatever
 * Content-Length claims. TLS certificates are verified unless `insecureTls` (for tests).
 * OUTBOUND_DENY is checked on every hop, after name resolution, and the connection goes to the
 * address checked: a redirect cannot lead the agent to a metadata or other denied address.
 */
export async function fetchSamlMetadata(url: string, options: FetchOptions = {}): Promise<SamlFetchResult> {
  const settings = settingsFrom(options);
  const start = parseStartUrl(url);
  if (typeof start === 'string') return { ok: false, error: start, finalUrl: null };
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), Math.min(settings.timeoutMs, LONGEST_TIMER_MS));
  const signal = options.signal === undefined ? deadline.signal : AbortSignal.any([options.signal, deadline.signal]);
  const abortReason = () => (deadline.signal.aborted ? `no complete answer within ${settings.timeoutMs} ms` : 'the fetch was cancelled');
  try {
    return await followRedirects(start, settings, signal, abortReason);
  } catch (error) {
    // Each step reports rather than throws; this only keeps the promise should one of them not.
    return { ok: false, error: describeError(error), finalUrl: start.href };
  } finally {
    clearTimeout(timer);
  }
}

async function followRedirects(
  start: URL,
  settings: FetchSettings,
  signal: AbortSignal,
  abortReason: () => string,
): Promise<SamlFetchResult> {
  let current = start;
  for (let redirects = 0; ; redirects += 1) {
    const attempt = await requestOnce(current, settings, signal, abortReason);
    switch (attempt.kind) {
      case 'failed':
        return { ok: false, error: attempt.error, finalUrl: current.href };
      case 'body':
        return documentFrom(current, attempt.body, attempt.remoteAddress);
      case 'redirect': {
        if (redirects === settings.maxRedirects) {
          return { ok: false, error: `more than ${settings.maxRedirects} redirects`, finalUrl: current.href };
        }
        const next = redirectTarget(current, attempt.location);
        if (typeof next === 'string') return { ok: false, error: next, finalUrl: current.href };
        current = next;
      }
    }
  }
}

function requestOnce(url: URL, settings: FetchSettings, signal: AbortSignal, abortReason: () => string): Promise<Attempt> {
  return new Promise((resolve) => {
    // The first outcome wins; the errors and closes that follow a deliberate destroy() are echoes.
    const fail = (error: string) => resolve({ kind: 'failed', error: signal.aborted ? abortReason() : error });
    let lookup: LookupFunction;
    try {
      // Throws for a denied IP literal; a name is checked by the lookup, the one resolution the connection uses.
      ({ lookup } = settings.guard.connectTo(bareHostname(url)));
    } catch (error) {
      return fail(describeError(error));
    }
    // A one-off agent: no pooled socket outlives the fetch.
    const options: RequestOptions = { method: 'GET', headers: REQUEST_HEADERS, signal, agent: false, lookup };
    const request =
      url.protocol === 'https:'
        ? httpsRequest(url, { ...options, rejectUnauthorized: !settings.insecureTls }, (response) =>
            onResponse(request, response, settings, resolve, fail),
          )
        : httpRequest(url, options, (response) => onResponse(request, response, settings, resolve, fail));
    request.on('error', (error) => fail(describeError(error)));
    request.on('close', () => fail('the connection closed before the document was complete'));
    request.end();
  });
}

function onResponse(
  request: ClientRequest,
  response: IncomingMessage,
  settings: FetchSettings,
  resolve: (attempt: Attempt) => void,
  fail: (error: string) => void,
): void {
  const outcome = outcomeWithoutBody(response, settings.maxBytes);
  // Read now: the socket forgets its peer once closed.
  const remoteAddress = response.socket?.remoteAddress ?? null;
  if (outcome === null)
    return readBody(request, response, settings.maxBytes, (body) => resolve({ kind: 'body', body, remoteAddress }), fail);
  resolve(outcome);
  // Neither a redirect's body nor an error page is worth reading.
  request.destroy();
}

/**
 * The attempt's outcome when the headers settle it (a redirect, an error status, a declared size
 * over the limit); null when the body is to be read.
 */
function outcomeWithoutBody(response: IncomingMessage, maxBytes: number): Attempt | null {
  const status = response.statusCode ?? 0;
  const failed = (error: string): Attempt => ({ kind: 'failed', error });
  if (REDIRECT_STATUSES.has(status)) return { kind: 'redirect', location: response.headers.location };
  if (status !== 200) return failed(`the server answered HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`);
  const encoding = response.headers['content-encoding'] ?? 'identity';
  if (encoding.toLowerCase() !== 'identity') return failed(`the server sent the document with Content-Encoding ${encoding}`);
  // Only a shortcut: the count while streaming is what enforces the limit.
  if (Number(response.headers['content-length']) > maxBytes) return failed(tooLarge(maxBytes));
  return null;
}

function readBody(
  request: ClientRequest,
  response: IncomingMessage,
  maxBytes: number,
  resolve: (body: Buffer) => void,
  fail: (error: string) => void,
): void {
  const chunks: Buffer[] = [];
  let received = 0;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) {
      fail(tooLarge(maxBytes));
      request.destroy();
      return;
    }
    chunks.push(chunk);
  });
  response.on('end', () => resolve(Buffer.concat(chunks, received)));
  response.on('error', (error) => fail(describeError(error)));
}

function documentFrom(url: URL, body: Buffer, remoteAddress: string | null): SamlFetchResult {
  // Keeping a byte order mark in the text means the text encodes back to exactly the bytes digested.
  const document = new TextDecoder('utf-8', { ignoreBOM: true }).decode(body);
  const digest = createHash('sha256').update(body).digest('hex');
  return { ok: true, finalUrl: url.href, remoteAddress, document, digest, bytes: body.length };
}

/** The host as the network sees it: URL.hostname keeps an IPv6 literal in brackets. */
function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function parseStartUrl(url: string): URL | string {
  if (!URL.canParse(url)) return `not a valid URL: ${url}`;
  const parsed = new URL(url);
  return FETCHABLE_PROTOCOLS.has(parsed.protocol) ? parsed : `only http and https URLs are fetched, not ${parsed.protocol}`;
}

/** The next URL, or why the redirect is not followed. */
function redirectTarget(from: URL, location: string | undefined): URL | string {
  if (location === undefined || location.trim() === '') return 'a redirect without a Location header';
  if (!URL.canParse(location, from.href)) return `a redirect to an invalid URL: ${location}`;
  const target = new URL(location, from);
  if (!FETCHABLE_PROTOCOLS.has(target.protocol))
    return `a redirect to ${target.protocol} (${target.href}); only http and https are followed`;
  if (from.protocol === 'https:' && target.protocol === 'http:')
    return `a redirect from https down to http (${target.href}) is not followed`;
  return target;
}

function tooLarge(maxBytes: number): string {
  return `the document is larger than ${maxBytes} bytes`;
}

// Duck-typed: errors from the network stack carry a code (ECONNREFUSED, DEPTH_ZERO_SELF_SIGNED_CERT) next to the message.
function describeError(error: unknown): string {
  if (error instanceof OutboundRefusedError) return error.message;
  const failure = error as { message?: unknown; code?: unknown } | null | undefined;
  const message = typeof failure?.message === 'string' ? failure.message : String(error);
  const code = typeof failure?.code === 'string' ? failure.code : null;
  return code === null || message.includes(code) ? message : `${message} (${code})`;
}

// NaN, negative and (for the deadline) zero or infinite values are mistakes, not limits: the defaults apply.
function settingsFrom(options: FetchOptions): FetchSettings {
  const { maxBytes, timeoutMs, maxRedirects } = options;
  return {
    maxBytes: maxBytes !== undefined && maxBytes >= 0 ? maxBytes : DEFAULT_MAX_BYTES,
    timeoutMs: timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs) ? timeoutMs : DEFAULT_TIMEOUT_MS,
    maxRedirects: maxRedirects !== undefined && Number.isInteger(maxRedirects) && maxRedirects >= 0 ? maxRedirects : DEFAULT_MAX_REDIRECTS,
    insecureTls: options.insecureTls === true,
    guard: options.guard ?? OutboundGuard.DEFAULT,
  };
}
