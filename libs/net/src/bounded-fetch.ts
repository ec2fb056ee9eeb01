import { open } from 'node:fs/promises';
import { type IncomingHttpHeaders, type IncomingMessage, request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { KeptConnections } from './kept-connections';
import { type OutboundGuard, OutboundRefusedError } from './outbound-guard';

export interface BoundedFetchOptions {
  /** Largest body accepted, counted as it streams in whatever Content-Length claims. */
  maxBytes: number;
  /** Deadline of the whole fetch: every hop, its connect and its body. */
  timeoutMs: number;
  /** Redirects followed before giving up; 0 follows none. */
  maxRedirects: number;
  /** Deadline of each hop's TCP connect, within the whole deadline. Default: only the whole deadline. */
  connectTimeoutMs?: number;
  /**
   * OUTBOUND_DENY, checked on every hop after name resolution, and the connection pinned to the
   * address checked. Absent: unguarded, for addresses an operator configured (root-store sources).
   */
  guard?: OutboundGuard;
  /** Reads a `file:` start address too (operator-configured sources). A redirect never leads to a file. */
  allowFile?: boolean;
  /** Skips TLS certificate verification (tests only). */
  insecureTls?: boolean;
  /** Cancels the fetch. */
  signal?: AbortSignal;
  /** Request headers, such as accept and user-agent. `accept-encoding: identity` is always sent. */
  headers?: Record<string, string>;
  /**
   * POST sends `body` and succeeds on any 2xx (receivers of notifications answer 200, 202 or 204);
   * GET, the default, on 200 only. A redirect is never followed with the body: give a POST no redirects.
   */
  method?: 'GET' | 'POST';
  body?: string | Buffer;
  /**
   * Takes an idle connection of these to the same origin, and leaves the connection there once
   * the answer was read whole. Absent: a connection of its own, closed when the fetch ends.
   */
  connections?: KeptConnections;
}

/** Why a fetch failed, for each caller to put in its own words. */
export type BoundedFetchFailure =
  | { kind: 'invalid-url' }
  | { kind: 'unsupported-protocol'; protocol: string }
  /** OUTBOUND_DENY refused the hop; `message` is the sentence shown to people. */
  | { kind: 'refused'; message: string }
  /** The network stack's error: `code` such as ECONNREFUSED, ENOTFOUND, DEPTH_ZERO_SELF_SIGNED_CERT. */
  | { kind: 'network'; message: string; code: string | null }
  | { kind: 'connect-timeout' }
  | { kind: 'timeout' }
  | { kind: 'cancelled' }
  /** Any answer but 200 (any 2xx for a POST) and the five redirect statuses. */
  | { kind: 'http-status'; status: number; statusMessage: string }
  /** A compressed body: its size says nothing of the document's, so it is never read. */
  | { kind: 'content-encoding'; encoding: string }
  | { kind: 'too-large' }
  /** The connection closed before the whole body arrived (or before Content-Length was reached). */
  | { kind: 'cut-short'; received: number; declared: number | null }
  | { kind: 'too-many-redirects'; status: number }
  | { kind: 'redirect-without-location' }
  | { kind: 'redirect-invalid'; location: string }
  /** A redirect to anything but http or https (file: included). */
  | { kind: 'redirect-protocol'; target: URL }
  /** A redirect from https down to http. */
  | { kind: 'redirect-downgrade'; target: URL }
  | { kind: 'file-missing' }
  | { kind: 'file-unreadable'; code: string }
  | { kind: 'not-a-file' };

export type BoundedFetchResult =
  | {
      ok: true;
      body: Buffer;
      /** The answer's HTTP status; null for a file. */
      status: number | null;
      /** The address the body came from, after redirects. */
      finalUrl: string;
      /** The remote end of the last hop's connection; null for a file. */
      remoteAddress: string | null;
      /** The last hop's response headers (Retry-After, for one); empty for a file. */
      headers: IncomingHttpHeaders;
    }
  /** `finalUrl`: the address whose request failed (the one redirecting, for a refused redirect); null when the start address was unusable. */
  | { ok: false; failure: BoundedFetchFailure; finalUrl: string | null };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const HTTP_PROTOCOLS = new Set(['http:', 'https:']);
// setTimeout fires at once for anything longer (about 24.8 days).
const LONGEST_TIMER_MS = 2 ** 31 - 1;

type Hop =
  | { kind: 'body'; body: Buffer; status: number; remoteAddress: string | null; headers: IncomingHttpHeaders }
  | { kind: 'redirect'; status: number; location: string | undefined }
  | Failed;
type Failed = { kind: 'failed'; failure: BoundedFetchFailure };

/**
 * Fetches one document within a byte limit and a deadline for the whole fetch, following
 * redirects by hand so each target is checked: http and https only, never from https down to
 * http, the outbound guard (when given) on every hop. Only a 200 answer without Content-Encoding
 * is read, and only whole: a body cut short is a failure, never a partial document. Never throws:
 * the result says what failed and at which address.
 */
export async function boundedFetch(address: string, options: BoundedFetchOptions): Promise<BoundedFetchResult> {
  if (!URL.canParse(address)) return { ok: false, failure: { kind: 'invalid-url' }, finalUrl: null };
  const start = new URL(address);
  const fileAllowed = options.allowFile === true && start.protocol === 'file:';
  if (!HTTP_PROTOCOLS.has(start.protocol) && !fileAllowed) {
    return { ok: false, failure: { kind: 'unsupported-protocol', protocol: start.protocol }, finalUrl: null };
  }
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), Math.min(Math.max(0, options.timeoutMs), LONGEST_TIMER_MS));
  const signal = options.signal === undefined ? deadline.signal : AbortSignal.any([options.signal, deadline.signal]);
  const abortFailure = (): BoundedFetchFailure => ({ kind: deadline.signal.aborted ? 'timeout' : 'cancelled' });
  try {
    if (fileAllowed) return await readFile(start, options.maxBytes, signal, abortFailure);
    return await followRedirects(start, options, signal, abortFailure);
  } catch (error) {
    // Each step reports rather than throws; this only keeps the promise should one of them not.
    return { ok: false, failure: networkFailure(error), finalUrl: start.href };
  } finally {
    clearTimeout(timer);
  }
}

async function followRedirects(
  start: URL,
  options: BoundedFetchOptions,
  signal: AbortSignal,
  abortFailure: () => BoundedFetchFailure,
): Promise<BoundedFetchResult> {
  let current = start;
  for (let redirects = 0; ; redirects += 1) {
    const hop = await requestOnce(current, options, signal, abortFailure);
    switch (hop.kind) {
      case 'failed':
        return { ok: false, failure: hop.failure, finalUrl: current.href };
      case 'body':
        return {
          ok: true,
          body: hop.body,
          status: hop.status,
          finalUrl: current.href,
          remoteAddress: hop.remoteAddress,
          headers: hop.headers,
        };
      case 'redirect': {
        if (redirects >= options.maxRedirects) {
          return { ok: false, failure: { kind: 'too-many-redirects', status: hop.status }, finalUrl: current.href };
        }
        const next = redirectTarget(current, hop.location);
        if ('kind' in next) return { ok: false, failure: next, finalUrl: current.href };
        current = next;
      }
    }
  }
}

/** The next URL, or why the redirect is not followed. */
function redirectTarget(from: URL, location: string | undefined): URL | BoundedFetchFailure {
  if (location === undefined || location.trim() === '') return { kind: 'redirect-without-location' };
  if (!URL.canParse(location, from.href)) return { kind: 'redirect-invalid', location };
  const target = new URL(location, from);
  // Never to a file: a server must not make us read local files.
  if (!HTTP_PROTOCOLS.has(target.protocol)) return { kind: 'redirect-protocol', target };
  if (from.protocol === 'https:' && target.protocol === 'http:') return { kind: 'redirect-downgrade', target };
  return target;
}

function requestOnce(url: URL, options: BoundedFetchOptions, signal: AbortSignal, abortFailure: () => BoundedFetchFailure): Promise<Hop> {
  let lookup: LookupFunction | undefined;
  try {
    // Throws for a denied IP literal; a name is checked by the lookup, the one resolution the connection uses.
    lookup = options.guard?.connectTo(bareHostname(url)).lookup;
  } catch (error) {
    return Promise.resolve({ kind: 'failed', failure: networkFailure(error) });
  }
  return new Promise((resolve) => {
    let settled = false;
    let connectTimer: NodeJS.Timeout | undefined;
    let responded = false;
    // The first outcome wins; the errors and closes that follow a deliberate destroy() are echoes.
    const settle = (hop: Hop) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      resolve(hop);
      // Only ever called from the request's events and timers, so `request` is set by then. A
      // body read whole leaves a kept connection to its agent; anything else may have left
      // unread bytes or a late answer on it, so it is never used again.
      if (hop.kind !== 'body' || options.connections === undefined) request.destroy();
    };
    const fail = (failure: BoundedFetchFailure) => settle({ kind: 'failed', failure: signal.aborted ? abortFailure() : failure });

    // Without kept connections, a one-off agent: no pooled socket outlives the fetch.
    const body = options.method === 'POST' ? Buffer.from(options.body ?? '') : null;
    const requestOptions: RequestOptions = {
      method: options.method ?? 'GET',
      headers: { ...options.headers, 'accept-encoding': 'identity', ...(body ? { 'content-length': String(body.length) } : {}) },
      signal,
      agent: options.connections?.agentFor(url) ?? false,
      ...(lookup ? { lookup } : {}),
    };
    const onResponse = (response: IncomingMessage) => {
      responded = true;
      // Read now: the socket forgets its peer once closed.
      const remoteAddress = response.socket?.remoteAddress ?? null;
      const outcome = outcomeWithoutBody(response, options);
      if (outcome !== null) return settle(outcome);
      const status = response.statusCode ?? 0;
      readBody(
        response,
        options.maxBytes,
        (answer) => settle({ kind: 'body', body: answer, status, remoteAddress, headers: response.headers }),
        fail,
      );
    };
    const request =
      url.protocol === 'https:'
        ? httpsRequest(url, { ...requestOptions, rejectUnauthorized: options.insecureTls !== true }, onResponse)
        : httpRequest(url, requestOptions, onResponse);
    if (options.connectTimeoutMs !== undefined) {
      connectTimer = setTimeout(() => fail({ kind: 'connect-timeout' }), Math.min(options.connectTimeoutMs, LONGEST_TIMER_MS));
      request.on('socket', (socket) => {
        const connected = () => clearTimeout(connectTimer);
        if (!socket.connecting) connected();
        // TLS sockets report the TCP connect as 'connect' too; 'secureConnect' is the fallback.
        socket.once('connect', connected).once('secureConnect', connected);
      });
    }
    request.on('error', (error) => fail(networkFailure(error)));
    // Once there is a response, its own events tell a whole body from a cut one.
    request.on('close', () => {
      if (!responded) fail({ kind: 'cut-short', received: 0, declared: null });
    });
    request.end(body ?? undefined);
  });
}

/** The hop's outcome when the headers settle it (a redirect, an error status, a compressed or oversized body); null when the body is to be read. */
function outcomeWithoutBody(response: IncomingMessage, { maxBytes, method }: BoundedFetchOptions): Hop | null {
  const status = response.statusCode ?? 0;
  const failed = (failure: BoundedFetchFailure): Hop => ({ kind: 'failed', failure });
  if (REDIRECT_STATUSES.has(status)) return { kind: 'redirect', status, location: response.headers.location };
  const succeeded = method === 'POST' ? status >= 200 && status <= 299 : status === 200;
  if (!succeeded) return failed({ kind: 'http-status', status, statusMessage: response.statusMessage ?? '' });
  const encoding = response.headers['content-encoding'] ?? 'identity';
  if (encoding.toLowerCase() !== 'identity') return failed({ kind: 'content-encoding', encoding });
  // Only a shortcut: the count while streaming is what enforces the limit.
  if (declaredLength(response) > maxBytes) return failed({ kind: 'too-large' });
  return null;
}

function declaredLength(response: IncomingMessage): number {
  const header = response.headers['content-length'];
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : NaN;
}

function readBody(
  response: IncomingMessage,
  maxBytes: number,
  done: (body: Buffer) => void,
  fail: (failure: BoundedFetchFailure) => void,
): void {
  const length = declaredLength(response);
  const progress = { received: 0, declared: Number.isNaN(length) ? null : length };
  const chunks: Buffer[] = [];
  const cutShort = () => fail({ kind: 'cut-short', ...progress });
  response.on('data', (chunk: Buffer) => {
    progress.received += chunk.length;
    if (progress.received > maxBytes) fail({ kind: 'too-large' });
    else chunks.push(chunk);
  });
  response.on('end', () => {
    if (!response.complete || (progress.declared !== null && progress.received !== progress.declared)) cutShort();
    else done(Buffer.concat(chunks, progress.received));
  });
  // A connection closed mid-body ends here, not at 'end'; after a whole body this changes nothing.
  response.on('error', cutShort);
  response.on('close', cutShort);
}

async function readFile(
  url: URL,
  maxBytes: number,
  signal: AbortSignal,
  abortFailure: () => BoundedFetchFailure,
): Promise<BoundedFetchResult> {
  const failed = (failure: BoundedFetchFailure): BoundedFetchResult => ({ ok: false, failure, finalUrl: url.href });
  let handle;
  try {
    handle = await open(fileURLToPath(url), 'r');
  } catch (error) {
    const code = errorCode(error);
    return failed(code === 'ENOENT' ? { kind: 'file-missing' } : { kind: 'file-unreadable', code });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return failed({ kind: 'not-a-file' });
    if (info.size > maxBytes) return failed({ kind: 'too-large' });
    const read = await handle.readFile({ signal }).then(
      (body) => ({ body }),
      (error: unknown) => ({ error }),
    );
    if ('error' in read) return failed(signal.aborted ? abortFailure() : { kind: 'file-unreadable', code: errorCode(read.error) });
    const { body } = read;
    // The file may have grown since stat().
    if (body.length > maxBytes) return failed({ kind: 'too-large' });
    return { ok: true, body, status: null, finalUrl: url.href, remoteAddress: null, headers: {} };
  } finally {
    await handle.close();
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}

/** The host as the network sees it: URL.hostname keeps an IPv6 literal in brackets. */
function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

// Duck-typed: errors from the network stack carry a code (ECONNREFUSED, DEPTH_ZERO_SELF_SIGNED_CERT) next to the message.
function networkFailure(error: unknown): BoundedFetchFailure {
  if (error instanceof OutboundRefusedError) return { kind: 'refused', message: error.message };
  const failure = error as { message?: unknown; code?: unknown } | null | undefined;
  const message = typeof failure?.message === 'string' ? failure.message : String(error);
  return { kind: 'network', message, code: typeof failure?.code === 'string' ? failure.code : null };
}
