import { boundedFetch, type BoundedFetchFailure } from '@certkeeper/net';

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

const REQUEST_HEADERS = { accept: 'text/csv, text/plain, */*', 'user-agent': 'Certkeeper root-store refresh' };

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
 * Reads an http:, https: or file: source whole, as UTF-8 text, through `boundedFetch`
 * (`@certkeeper/net`). A non-200 answer, a compressed body, a timeout, a body over the size cap,
 * a body shorter than its Content-Length or a connection closed mid-body all throw
 * SourceFetchError: a partial report must never pass for a whole one. Sources are configured by
 * the operator (ROOT_STORES_CSV_URL, ROOT_STORES_PEM_URLS), so no OUTBOUND_DENY guard applies, as before; a redirect
 * still never leads to a file or from https down to http.
 */
export async function fetchSourceText(source: string, limits: FetchLimits = DEFAULT_FETCH_LIMITS): Promise<string> {
  const result = await boundedFetch(source, {
    maxBytes: limits.maxBytes,
    timeoutMs: limits.timeoutMs,
    connectTimeoutMs: limits.connectTimeoutMs,
    maxRedirects: limits.maxRedirects,
    allowFile: true,
    signal: limits.signal,
    headers: REQUEST_HEADERS,
  });
  if (!result.ok)
    throw new SourceFetchError(`Could not read ${describeSource(source)}: ${reason(result.failure, result.finalUrl, limits)}`);
  return result.body.toString('utf8');
}

function reason(failure: BoundedFetchFailure, at: string | null, limits: FetchLimits): string {
  switch (failure.kind) {
    case 'invalid-url':
      return 'it is not a usable address';
    case 'unsupported-protocol':
      return 'only http, https and file addresses are read';
    case 'refused':
      return failure.message;
    case 'network':
      return failure.code === 'ENOTFOUND' && at !== null ? `host ${new URL(at).hostname} not found` : failure.message;
    case 'connect-timeout':
      return `could not connect within ${seconds(limits.connectTimeoutMs)}`;
    case 'timeout':
      return at?.startsWith('file:')
        ? `not read within ${seconds(limits.timeoutMs)}`
        : `no complete answer within ${seconds(limits.timeoutMs)}`;
    case 'cancelled':
      return 'cancelled';
    case 'http-status':
      return `answered HTTP ${failure.status}${failure.statusMessage ? ` ${failure.statusMessage}` : ''}`;
    case 'content-encoding':
      return `sent a compressed body (Content-Encoding ${failure.encoding}), which is not read`;
    case 'too-large':
      return `larger than the ${limits.maxBytes / MiB} MiB limit`;
    case 'cut-short':
      return `the body was cut short after ${failure.received} of ${failure.declared ?? 'an unknown number of'} bytes`;
    case 'too-many-redirects':
      return `more than ${limits.maxRedirects} redirects`;
    case 'redirect-without-location':
      return 'redirected without a Location header';
    case 'redirect-invalid':
      return 'redirected to an unreadable address';
    case 'redirect-protocol':
      return `redirected to a ${failure.target.protocol} address`;
    case 'redirect-downgrade':
      return 'redirected from https to plain http';
    case 'file-missing':
      return 'no such file';
    case 'file-unreadable':
      return `the file cannot be opened (${failure.code})`;
    case 'not-a-file':
      return 'not a regular file';
  }
}

function seconds(milliseconds: number): string {
  return `${Math.round(milliseconds / 100) / 10} s`;
}
