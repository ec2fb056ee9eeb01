import { type LookupFunction, Socket } from 'node:net';
import { parseServerResponse, type ServerResponse } from '@certkeeper/domain';
import type { OutboundGuard } from '@certkeeper/net';

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

export interface ExchangeLimits {
  connectTimeoutMs: number;
  /** From the moment the hello is written until a complete answer. */
  readTimeoutMs: number;
  signal?: AbortSignal;
  /** OUTBOUND_DENY: a denied target is `unreachable`, with the guard's reason. */
  guard: OutboundGuard;
}

// A ServerHello fits in a few hundred bytes; a peer that streams more without forming one is not answering.
const MAX_BUFFERED_BYTES = 64 * 1024;

/**
 * One connection: connect, write the ClientHello, read until the first ServerHello or alert is
 * complete, then destroy the socket at once (the handshake is never finished, so the
 * certificate and key exchange that follow are never read). Resolves, never rejects.
 */
export function exchangeHello(target: { host: string; port: number }, hello: Buffer, limits: ExchangeLimits): Promise<ExchangeOutcome> {
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
    socket.once('connect', () => {
      connected = true;
      clearTimeout(timer);
      timer = setTimeout(() => finish({ kind: 'silent' }), limits.readTimeoutMs);
      socket.write(hello);
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const response = answerIn(received);
      if (response !== null) finish({ kind: 'answered', response });
    });
    // A reset after our hello is how many servers refuse one; before it, the host is unreachable.
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(connected ? { kind: 'closed' } : { kind: 'unreachable', reason: describeConnectError(error, target) }),
    );
    socket.once('close', () => finish(connected ? { kind: 'closed' } : { kind: 'unreachable', reason: 'connection closed' }));
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
