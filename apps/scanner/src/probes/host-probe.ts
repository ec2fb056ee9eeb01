import { randomUUID, type X509Certificate } from 'node:crypto';
import { createConnection, isIP, type Socket } from 'node:net';
import { checkServerIdentity, connect, createSecureContext, type SecureContext, type TLSSocket } from 'node:tls';
import {
  type HostScanResult,
  type HostWorkItem,
  MAX_PRESENTED_CHAIN,
  type StarttlsProtocol,
  type TlsProfile,
  type TlsVersionName,
} from '@certkeeper/domain/protocol';
import { certificateToPem } from '@certkeeper/domain/x509';
import { OutboundGuard } from '@certkeeper/net';
import { GOODBYES } from './starttls';
import { upgradeConnection } from './tls/hello-exchange';

export interface HostProbeOptions {
  connectTimeoutMs?: number;
  handshakeTimeoutMs?: number;
  /** The whole probe, profile included. */
  deadlineMs?: number;
  /** Runs the TLS profile when the work item asks for one; null skips it. */
  profile?:
    | ((
        target: { host: string; port: number; serverName: string; starttls: StarttlsProtocol | null },
        deadlineMs: number,
      ) => Promise<TlsProfile | null>)
    | null;
  now?: () => Date;
  /** OUTBOUND_DENY, checked after name resolution. Default: the default deny list. */
  guard?: OutboundGuard;
}

export interface Handshake {
  chain: string[];
  resolvedIp: string | null;
  tlsVersion: TlsVersionName | null;
  cipherSuite: string | null;
  authorized: boolean;
  authorizationError: string | null;
}

// Built once: options like minVersion passed to tls.connect would build (and load the CA store
// into) a new context for every connection, which costs more CPU than the handshake itself.
// Old servers are observed too: the point is to find them.
let probeContext: SecureContext | undefined;
function sharedProbeContext(): SecureContext {
  probeContext ??= createSecureContext({ minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' });
  return probeContext;
}

const NODE_VERSION_NAMES: Record<string, TlsVersionName> = {
  SSLv3: 'SSLv3',
  TLSv1: 'TLSv1.0',
  'TLSv1.1': 'TLSv1.1',
  'TLSv1.2': 'TLSv1.2',
  'TLSv1.3': 'TLSv1.3',
};

/**
 * One TLS handshake (captureHandshake over a connection through the guard): to `ipAddress` when
 * pinned, else the DNS name, with SNI always the DNS name (never an IP literal). Verification is
 * off so that expired and private certificates are still observed; the verdict is recorded
 * instead. A target OUTBOUND_DENY forbids (the pinned address, or any address
 * the name resolves to) is a failed scan saying so, and the profile's connections go to the
 * address the handshake reached, never through a second resolution. With `starttls`
 * (docs/api-contract.md section 13) the protocol's upgrade runs between connect and ClientHello, within the handshake
 * deadline; a refused upgrade is a failed scan whose error is the upgrader's message, and the
 * session ends with the protocol's goodbye (GOODBYES) inside TLS. Never throws for a network
 * failure: the result says what failed.
 */
export async function probeHost(item: HostWorkItem, options: HostProbeOptions = {}): Promise<HostScanResult> {
  const now = options.now ?? (() => new Date());
  const scannedAt = now();
  const deadlineMs = options.deadlineMs ?? 30_000;
  const started = Date.now();
  const base = { resultId: randomUUID(), endpointId: item.endpointId, type: 'host' as const, scannedAt: scannedAt.toISOString() };
  try {
    const handshake = await handshakeWith(
      item,
      options.guard ?? OutboundGuard.DEFAULT,
      options.connectTimeoutMs ?? 5000,
      Math.min(options.handshakeTimeoutMs ?? 10_000, deadlineMs),
    );
    let tlsProfile: TlsProfile | null = null;
    const remaining = deadlineMs - (Date.now() - started);
    if (item.tlsProfileDue && options.profile && remaining > 1000) {
      const host = handshake.resolvedIp ?? item.ipAddress ?? item.dnsName;
      const target = { host, port: item.port, serverName: item.dnsName, starttls: item.starttls ?? null };
      tlsProfile = await options.profile(target, remaining).catch(() => null);
    }
    return { ...base, success: true, error: null, ...handshake, tlsProfile };
  } catch (error) {
    return {
      ...base,
      success: false,
      error: error instanceof Error ? error.message : String(error),
      resolvedIp: null,
      tlsVersion: null,
      cipherSuite: null,
      authorized: null,
      authorizationError: null,
      chain: [],
      tlsProfile: null,
    };
  }
}

function handshakeWith(item: HostWorkItem, guard: OutboundGuard, connectTimeoutMs: number, handshakeTimeoutMs: number): Promise<Handshake> {
  const target = `${item.ipAddress ?? item.dnsName}:${item.port}`;
  const started = Date.now();
  return new Promise<Socket>((resolve, reject) => {
    // Throws (rejecting the promise) for a denied IP literal; a name is checked by the guard's lookup.
    const socket = createConnection({ ...guard.connectTo(item.ipAddress ?? item.dnsName), port: item.port });
    const fail = (message: string) => {
      clearTimeout(connectTimer);
      socket.destroy();
      reject(new Error(message));
    };
    // Deadlines: reaching the port, then finishing the handshake. A host that accepts TCP and
    // then says nothing is caught by the second.
    const connectTimer = setTimeout(() => fail(`connection to ${target} timed out after ${connectTimeoutMs} ms`), connectTimeoutMs);
    const onError = (error: NodeJS.ErrnoException) => fail(describeSocketError(error, target));
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(connectTimer);
      socket.off('error', onError);
      resolve(socket);
    });
  }).then(async (socket) => {
    // The handshake deadline counts from the start, connect included, as it always has; the
    // STARTTLS dialogue spends from the same budget.
    const remaining = () => Math.max(1, handshakeTimeoutMs - (Date.now() - started));
    if (item.starttls) {
      // The upgrader listens for errors itself; this one keeps a late one from going unhandled.
      socket.on('error', () => undefined);
      await upgradeConnection(socket, item.starttls, { serverName: item.dnsName, deadlineMs: remaining(), target });
    }
    return captureHandshake(socket, {
      serverName: isIP(item.dnsName) === 0 ? item.dnsName : null,
      handshakeTimeoutMs: remaining(),
      target,
      goodbye: item.starttls ? GOODBYES[item.starttls](item.dnsName) : null,
    });
  });
}

/** Why captureHandshake failed: no answer in time, the peer closed, or a socket/TLS error (`code`). */
export class HandshakeFailure extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'closed' | 'error',
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'HandshakeFailure';
  }
}

export interface CaptureHandshakeOptions {
  /** SNI; none when null or absent (an IP literal must not be sent as SNI). */
  serverName?: string | null;
  handshakeTimeoutMs: number;
  /** "host:port" for failure messages. Default: the socket's remote address and port. */
  target?: string;
  /** Said inside the TLS session before close_notify: the STARTTLS protocol's own goodbye (QUIT, LOGOUT, ...). */
  goodbye?: string | Buffer | null;
}

/**
 * How long a probe waits, after its handshake, for the server to close the connection it asked
 * to end (the goodbye's answer, then close_notify); a server still silent then has it destroyed.
 * A server answers at once: this bounds only one that never does.
 */
export const POLITE_CLOSE_MS = 1000;

/**
 * The TLS handshake over an already-connected socket (reached through the guard by the caller),
 * capturing chain, version and cipher. Verification is off so that expired and private
 * certificates are still observed; the verdict is recorded instead. Takes ownership of the
 * socket, which is closed when the promise settles: a completed handshake politely (`goodbye`,
 * then close_notify, waiting up to POLITE_CLOSE_MS for the server to close its side), so that
 * the server logs a finished session rather than a failed handshake (docs/decisions/0013); a
 * failed one at once. Rejects with a HandshakeFailure.
 */
export function captureHandshake(socket: Socket, options: CaptureHandshakeOptions): Promise<Handshake> {
  const target = options.target ?? `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
  const serverName = options.serverName ?? null;
  // Read before the upgrade: the raw socket is the one whose peer the guard checked.
  const resolvedIp = socket.remoteAddress ?? null;
  // A socket the peer already closed (while the caller waited, say) would never emit another
  // event once wrapped: the handshake would only end by its deadline and look like silence.
  if (socket.destroyed) {
    return Promise.reject(new HandshakeFailure(`${target} closed the connection during the handshake`, 'closed'));
  }
  return new Promise((resolve, reject) => {
    const secure = connect({
      socket,
      servername: serverName ?? undefined,
      rejectUnauthorized: false,
      secureContext: sharedProbeContext(),
    });
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Read the socket before closing it: address and protocol are gone once destroyed.
      outcome();
      secure.destroy();
      socket.destroy();
    };
    const succeed = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const handshake = describe(secure, serverName, resolvedIp);
      void closePolitely(secure, socket, options.goodbye ?? null).then(() => resolve(handshake));
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(new HandshakeFailure(`TLS handshake with ${target} timed out after ${options.handshakeTimeoutMs} ms`, 'timeout')),
        ),
      options.handshakeTimeoutMs,
    );
    secure.once('secureConnect', succeed);
    const onError = (error: NodeJS.ErrnoException) =>
      finish(() => reject(new HandshakeFailure(describeSocketError(error, target), 'error', error.code ?? null)));
    secure.once('error', onError);
    // The wrapped socket's own errors, should it emit any, must not go unhandled.
    socket.once('error', onError);
    secure.once('close', () =>
      finish(() => reject(new HandshakeFailure(`${target} closed the connection during the handshake`, 'closed'))),
    );
  });
}

/**
 * Ends a completed TLS session as a client should: the protocol's goodbye, close_notify
 * (end(), where destroy() would leave the server a reset or a bare FIN mid-session), then the
 * server's close, read through so that its answer and session tickets do not turn the close into
 * a reset. Settles when the connection is closed, by the server or by the deadline.
 */
function closePolitely(secure: TLSSocket, socket: Socket, goodbye: string | Buffer | null): Promise<void> {
  return new Promise((resolve) => {
    const closed = () => {
      clearTimeout(deadline);
      secure.destroy();
      socket.destroy();
      resolve();
    };
    const deadline = setTimeout(closed, POLITE_CLOSE_MS);
    // A server may reset rather than answer close_notify: the scan is done either way.
    secure.on('error', () => undefined);
    socket.on('error', () => undefined);
    secure.once('close', closed);
    secure.resume();
    if (goodbye !== null) secure.write(goodbye);
    secure.end();
  });
}

function describe(socket: TLSSocket, serverName: string | null, resolvedIp: string | null): Handshake {
  // Once only: Node builds this certificate's issuerCertificate links by taking the certificates
  // off OpenSSL's peer chain, which is left without them (measured on Node 20.20; see
  // docs/decisions/0017-the-chain-as-presented.md).
  const leaf = socket.getPeerX509Certificate();
  const cipher = socket.getCipher();
  const authorizationError = socket.authorized
    ? identityError(serverName, leaf)
    : String(socket.authorizationError ?? 'the chain did not verify');
  return {
    chain: presentedChain(leaf),
    resolvedIp: resolvedIp ?? socket.remoteAddress ?? null,
    tlsVersion: NODE_VERSION_NAMES[socket.getProtocol() ?? ''] ?? null,
    cipherSuite: cipher?.standardName ?? cipher?.name ?? null,
    authorized: authorizationError === null,
    authorizationError,
  };
}

/**
 * Why a certificate whose chain verified does not cover `serverName`, by tls.checkServerIdentity's
 * rules (the ones tls.connect applies); null when it does, or when no name was asked for.
 */
export function identityError(serverName: string | null, leaf: X509Certificate | undefined): string | null {
  if (serverName === null || leaf === undefined) return null;
  return checkServerIdentity(serverName, leaf.toLegacyObject())?.message ?? null;
}

/**
 * The chain exactly as the server sent it, leaf first, as PEM: out of order or with certificates
 * that belong to no path, since that is what chainComplete judges (docs/api-contract.md section
 * 4). Node's X509Certificate of the peer links each certificate to the next one sent, where
 * getPeerCertificate(true) links each to its issuer, drops the others and appends roots from the
 * local trust store (and costs eight times the CPU). A certificate sent twice is kept once; a
 * server sending more than MAX_PRESENTED_CHAIN is reported by its first ones.
 */
export function presentedChain(leaf: X509Certificate | undefined): string[] {
  const sent: Buffer[] = [];
  for (
    let certificate = leaf;
    certificate !== undefined && sent.length < MAX_PRESENTED_CHAIN;
    certificate = certificate.issuerCertificate
  ) {
    const der = certificate.raw;
    if (!sent.some((earlier) => earlier.equals(der))) sent.push(der);
  }
  return sent.map((der) => certificateToPem(der));
}

function describeSocketError(error: NodeJS.ErrnoException, target: string): string {
  switch (error.code ?? '') {
    case 'EOUTBOUNDDENIED':
      return error.message;
    case 'ECONNREFUSED':
      return `connection to ${target} refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `could not resolve ${target.split(':')[0]}`;
    case 'ECONNRESET':
      return `${target} reset the connection`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${target} is unreachable`;
    default:
      return `${target}: ${error.message}`;
  }
}
