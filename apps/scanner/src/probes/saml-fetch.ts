import { createHash } from 'node:crypto';
import { boundedFetch, type BoundedFetchFailure, OutboundGuard } from '@certkeeper/net';

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
}

const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_REDIRECTS = 5;
const REQUEST_HEADERS = {
  accept: 'application/samlmetadata+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1',
  'user-agent': 'Certkeeper-Scanner',
};

/**
 * Fetches a metadata document over http or https through `boundedFetch` (`@certkeeper/net`):
 * a byte limit, a deadline for the whole fetch, redirects checked hop by hop (http and https
 * only, never from https down to http: metadata authenticity rests on TLS when it is not signed),
 * nothing compressed, and OUTBOUND_DENY on every hop, so a redirect cannot lead the agent to a
 * metadata or other denied address. Never throws for network failures: the result says what
 * failed and at which URL. TLS certificates are verified unless `insecureTls` (for tests).
 */
export async function fetchSamlMetadata(url: string, options: FetchOptions = {}): Promise<SamlFetchResult> {
  const settings = settingsFrom(options);
  const result = await boundedFetch(url, {
    ...settings,
    guard: options.guard ?? OutboundGuard.DEFAULT,
    insecureTls: options.insecureTls === true,
    signal: options.signal,
    headers: REQUEST_HEADERS,
  });
  if (!result.ok) return { ok: false, error: describeFailure(result.failure, url, settings), finalUrl: result.finalUrl };
  // Keeping a byte order mark in the text means the text encodes back to exactly the bytes digested.
  const document = new TextDecoder('utf-8', { ignoreBOM: true }).decode(result.body);
  const digest = createHash('sha256').update(result.body).digest('hex');
  return { ok: true, finalUrl: result.finalUrl, remoteAddress: result.remoteAddress, document, digest, bytes: result.body.length };
}

/** The sentence recorded as the scan's error. */
function describeFailure(failure: BoundedFetchFailure, url: string, settings: FetchSettings): string {
  switch (failure.kind) {
    case 'invalid-url':
      return `not a valid URL: ${url}`;
    case 'unsupported-protocol':
      return `only http and https URLs are fetched, not ${failure.protocol}`;
    case 'refused':
      return failure.message;
    case 'network':
      return failure.code === null || failure.message.includes(failure.code) ? failure.message : `${failure.message} (${failure.code})`;
    case 'connect-timeout':
    case 'timeout':
      return `no complete answer within ${settings.timeoutMs} ms`;
    case 'cancelled':
      return 'the fetch was cancelled';
    case 'http-status':
      return `the server answered HTTP ${failure.status}${failure.statusMessage ? ` ${failure.statusMessage}` : ''}`;
    case 'content-encoding':
      return `the server sent the document with Content-Encoding ${failure.encoding}`;
    case 'too-large':
      return `the document is larger than ${settings.maxBytes} bytes`;
    case 'cut-short':
      return 'the connection closed before the document was complete';
    case 'too-many-redirects':
      return `more than ${settings.maxRedirects} redirects`;
    case 'redirect-without-location':
      return 'a redirect without a Location header';
    case 'redirect-invalid':
      return `a redirect to an invalid URL: ${failure.location}`;
    case 'redirect-protocol':
      return `a redirect to ${failure.target.protocol} (${failure.target.href}); only http and https are followed`;
    case 'redirect-downgrade':
      return `a redirect from https down to http (${failure.target.href}) is not followed`;
    // Files are never read here (no allowFile); listed for completeness.
    case 'file-missing':
    case 'file-unreadable':
    case 'not-a-file':
      return 'only http and https URLs are fetched, not file:';
  }
}

// NaN, negative and (for the deadline) zero or infinite values are mistakes, not limits: the defaults apply.
function settingsFrom(options: FetchOptions): FetchSettings {
  const { maxBytes, timeoutMs, maxRedirects } = options;
  return {
    maxBytes: maxBytes !== undefined && maxBytes >= 0 ? maxBytes : DEFAULT_MAX_BYTES,
    timeoutMs: timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs) ? timeoutMs : DEFAULT_TIMEOUT_MS,
    maxRedirects: maxRedirects !== undefined && Number.isInteger(maxRedirects) && maxRedirects >= 0 ? maxRedirects : DEFAULT_MAX_REDIRECTS,
  };
}
