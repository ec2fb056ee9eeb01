import { type LookupFunction, Socket } from 'node:net';
import type { StarttlsProtocol } from '@certkeeper/domain/protocol';
import { parseServerResponse, type ServerResponse } from '@certkeeper/domain/tls';
import type { OutboundGuard } from '@certkeeper/net';
import { StarttlsError, UPGRADERS } from '../starttls';

export type AnsweredResponse = Exclude<ServerResponse, { kind: 'incomplete' }>;

export type ExchangeOutcome =
  /** The server answered: a ServerHello, an alert, SSL 2.0 or bytes that are not TLS. */
  | { kind: 'answered'; response: AnsweredResponse }
  /** Connected, sent the hello, and the server closed or reset the connection without an answer. */
  | { kind: 'closed' }
  /** Connected, sent the hello, and no complete answer arrived before the read deadline. */
  | { kind: 'silent' }
  /** The TCP connection itself failed or timed out. */
  | { kind: 'unreachable'; reason: string }
  | { kind: 'aborted' };

export interface ExchangeTarget {
  host: string;
  port: number;
  /** Spoken on the connection before the hello (docs/api-contract.md section 13); null or absent: implicit TLS. */
  starttls?: StarttlsProtocol | null;
  /** The EHLO argument, XMPP's `to`; default: host. */
  serverName?: string;
}

export interface ExchangeLimits {
  connectTimeoutMs: number;
  /** From the moment the hello is written until a complete answer; with STARTTLS, from connect (the upgrade counts). */
  readTimeoutMs: number;
  signal?: AbortSignal;
  /** OUTBOUND_DENY: a denied target is `unreachable`, with the guard's reason. */
  guard: OutboundGuard;
}

// A ServerHello fits in a few hundred bytes; a peer that streams more without forming one is not answering.
const MAX_BUFFERED_BYTES = 64 * 1024;

/** Left to the upgrade's own per-read deadlines, so that a silent server fails with the step it was silent at. */
const UPGRADE_BACKSTOP_MARGIN_MS = 100;

/**
 * Speaks the STARTTLS dialogue of `protocol` on a connected socket within `deadlineMs` in all (a
 * server trickling one line at a time would otherwise outlive every per-read deadline). The socket
 * is left paused, ready for the ClientHello. On failure the socket is destroyed and the promise
 * rejects: with the upgrader's StarttlsError naming the step, or with one saying the dialogue ran
 * out of time.
 */
export async function upgradeConnection(
  socket: Socket,
  protocol: StarttlsProtocol,
  options: { serverName: string; deadlineMs: number; target: string },
): Promise<void> {
  const deadlineMs = Math.max(1, options.deadlineMs);
  let timer: NodeJS.Timeout | undefined;
  const backstop = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      socket.destroy();
      reject(new StarttlsError(`STARTTLS (${protocol}) dialogue with ${options.target} did not finish within ${deadlineMs} ms`));
    }, deadlineMs);
  });
  try {
    // Whole seconds when there are some, so the error reads "no reply to EHLO within 4 s".
    const perRead = deadlineMs - UPGRADE_BACKSTOP_MARGIN_MS;
    const readTimeoutMs = perRead >= 2000 ? Math.floor(perRead / 1000) * 1000 : Math.max(1, perRead);
    await Promise.race([UPGRADERS[protocol](socket, { serverName: options.serverName, readTimeoutMs }), backstop]);
  } catch (error) {
    socket.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One connection: connect, write the ClientHello, read until the first ServerHello or alert is
 * complete, then destroy the socket at once (the handshake is never finished, so the
 * certificate and key exchange that follow are never read). Resolves, never rejects.
 */
export function exchangeHello(target: ExchangeTarget, hello: Buffer, limits: ExchangeLimits): Promise<ExchangeOutcome> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let received = Buffer.alloc(0);
    let connected = false;
    let timer: NodeJS.Timeout | undefined;
    let settled = false;

    const finish = (outcome: ExchangeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(outcome);
    };
    const onAbort = () => finish({ kind: 'aborted' });
    if (limits.signal?.aborted) return finish({ kind: 'aborted' });
    let lookup: LookupFunction;
    try {
      ({ lookup } = limits.guard.connectTo(target.host));
    } catch (error) {
      return finish({ kind: 'unreachable', reason: (error as Error).message });
    }
    limits.signal?.addEventListener('abort', onAbort, { once: true });

    timer = setTimeout(
      () =>
        finish({
          kind: 'unreachable',
          reason: `connection to ${target.host}:${target.port} timed out after ${limits.connectTimeoutMs} ms`,
        }),
      limits.connectTimeoutMs,
    );
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const response = answerIn(received);
      if (response !== null) finish({ kind: 'answered', response });
    };
    // A reset after our hello is how many servers refuse one; before it, the host is unreachable.
    const onError = (error: NodeJS.ErrnoException) =>
      finish(connected ? { kind: 'closed' } : { kind: 'unreachable', reason: describeConnectError(error, target) });
    const onClose = () => finish(connected ? { kind: 'closed' } : { kind: 'unreachable', reason: 'connection closed' });
    const sendHello = (readTimeoutMs: number) => {
      connected = true;
      timer = setTimeout(() => finish({ kind: 'silent' }), readTimeoutMs);
      socket.on('data', onData);
      socket.on('error', onError);
      socket.once('close', onClose);
      // The upgrader leaves the socket paused; a 'data' listener alone does not resume a stream paused explicitly.
      socket.resume();
      socket.write(hello);
    };
    // Until connected (and, with STARTTLS, upgraded), a failure means the host is unreachable.
    const onConnectError = (error: NodeJS.ErrnoException) => finish({ kind: 'unreachable', reason: describeConnectError(error, target) });
    socket.once('error', onConnectError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onConnectError);
      if (!target.starttls) return sendHello(limits.readTimeoutMs);
      // One upgrade per connection; the read deadline covers the dialogue and the hello's answer.
      const upgradeStarted = performance.now();
      const address = `${target.host}:${target.port}`;
      // The upgrader attaches its own error listener; this one only keeps a late error handled.
      socket.on('error', () => undefined);
      upgradeConnection(socket, target.starttls, {
        serverName: target.serverName ?? target.host,
        deadlineMs: limits.readTimeoutMs,
        target: address,
      }).then(
        () => {
          if (settled) return;
          if (socket.destroyed)
            return finish({ kind: 'unreachable', reason: `${address} closed the connection after the STARTTLS upgrade` });
          sendHello(Math.max(1, limits.readTimeoutMs - (performance.now() - upgradeStarted)));
        },
        // A refused or stalled upgrade ends the profile: no hello can tell anything on this server.
        (error: unknown) => finish({ kind: 'unreachable', reason: error instanceof Error ? error.message : String(error) }),
      );
    });
    socket.setNoDelay(true);
    socket.connect({ port: target.port, host: target.host, lookup });
  });
}

/** The answer once the bytes hold one; null while more are needed. */
function answerIn(received: Buffer): AnsweredResponse | null {
  const response = parseServerResponse(received);
  if (response.kind !== 'incomplete') return response;
  return received.length > MAX_BUFFERED_BYTES ? { kind: 'malformed', reason: 'no ServerHello in the first 64 KiB' } : null;
}

const CONNECT_ERRORS: Readonly<Record<string, (address: string, host: string, error: Error) => string>> = {
  EOUTBOUNDDENIED: (_address, _host, error) => error.message,
  ECONNREFUSED: (address) => `connection to ${address} refused`,
  ENOTFOUND: (_address, host) => `could not resolve ${host}`,
  EAI_AGAIN: (_address, host) => `could not resolve ${host}`,
  EHOSTUNREACH: (address) => `${address} is unreachable`,
  ENETUNREACH: (address) => `${address} is unreachable`,
};

function describeConnectError(error: NodeJS.ErrnoException, target: { host: string; port: number }): string {
  const address = `${target.host}:${target.port}`;
  const describe = CONNECT_ERRORS[error.code ?? ''];
  return describe === undefined ? `${address}: ${error.message}` : describe(address, target.host, error);
}
