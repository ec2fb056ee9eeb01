import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { OutboundGuard } from '@certkeeper/net';

/** The identity provider could not be reached, or not within the deadline: a 502 for the caller. */
export class IdentityProviderUnavailableError extends Error {
  override readonly name = 'IdentityProviderUnavailableError';
}

/** The largest answer read from an identity provider: discovery documents and JWKS are a few KiB. */
export const IDENTITY_PROVIDER_MAX_BYTES = 1024 * 1024;

/** What openid-client hands its `customFetch` (its CustomFetchOptions), as far as this needs it. */
export interface ProviderFetchOptions {
  method: string;
  headers: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
}

export type ProviderFetch = (url: string, options: ProviderFetchOptions) => Promise<Response>;

// The Fetch API refuses a body on these statuses.
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A fetch for openid-client's `customFetch` (discovery, token, JWKS and userinfo calls alike)
 * that connects only where OUTBOUND_DENY allows (the guard's pinned lookup, checked per hop),
 * gives up when `deadline` fires (one deadline for every call of one sign-in step), reads at most
 * `maxBytes`, and never follows redirects (openid-client asks for `redirect: 'manual'`). Every
 * network failure, refusal, timeout or oversized answer rejects with
 * IdentityProviderUnavailableError, whose message names the cause without any secret.
 */
export function identityProviderFetch(guard: OutboundGuard, deadline: AbortSignal, maxBytes = IDENTITY_PROVIDER_MAX_BYTES): ProviderFetch {
  return (address, options) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(address);
      const where = `${url.protocol}//${url.host}`;
      const fail = (reason: string) => reject(new IdentityProviderUnavailableError(`${where}: ${reason}`));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(`unsupported protocol ${url.protocol}`);
      const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
      if (signal.aborted) return fail('no answer within the deadline');
      let lookup;
      try {
        lookup = guard.connectTo(url.hostname.replace(/^\[(.*)\]$/, '$1')).lookup;
      } catch (error) {
        return fail(error instanceof Error ? error.message : 'refused');
      }
      const body = requestBody(options.body);
      const headers: Record<string, string> = { ...options.headers, 'accept-encoding': 'identity' };
      if (body !== undefined) headers['content-length'] = String(body.length);
      const onResponse = (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxBytes) {
            request.destroy();
            fail(`answer larger than ${maxBytes} bytes`);
          } else chunks.push(chunk);
        });
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 599) return fail(`unexpected HTTP status ${status}`);
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, one);
          }
          resolve(
            new Response(NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks), {
              status,
              statusText: response.statusMessage ?? '',
              headers: responseHeaders,
            }),
          );
        });
        response.on('error', () => fail('the connection closed mid-answer'));
      };
      const requestOptions = { method: options.method, headers, signal, agent: false as const, lookup };
      const request =
        url.protocol === 'https:' ? httpsRequest(url, requestOptions, onResponse) : httpRequest(url, requestOptions, onResponse);
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (signal.aborted) fail('no answer within the deadline');
        else fail(error.code ?? error.message);
      });
      request.end(body);
    });
}

function requestBody(body: unknown): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof URLSearchParams) return Buffer.from(body.toString(), 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(new Uint8Array(body));
  // openid-client sends only the kinds above on the calls Certkeeper makes.
  throw new TypeError('unsupported request body');
}
