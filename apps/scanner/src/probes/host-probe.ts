import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import {
  checkServerIdentity,
  connect,
  createSecureContext,
  type DetailedPeerCertificate,
  type SecureContext,
  type TLSSocket,
} from 'node:tls';
import { certificateToPem, type HostScanResult, type HostWorkItem, type TlsProfile, type TlsVersionName } from '@certkeeper/domain';
import { OutboundGuard } from '@certkeeper/net';

export interface HostProbeOptions {
  connectTimeoutMs?: number;
  handshakeTimeoutMs?: number;
  /** The whole probe, profile included. */
  deadlineMs?: number;
  /** Runs the TLS profile when the work item asks for one; null skips it. */
  profile?: ((target: { host: string; port: number; serverName: string }, deadlineMs: number) => Promise<TlsProfile | null>) | null;
  now?: () => Date;
  /** OUTBOUND_DENY, checked after name resolution. Default: the default deny list. */
  guard?: OutboundGuard;
}

interface Handshake {
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
 * One TLS handshake: to `ipAddress` when pinned, else the DNS name, with SNI always the DNS
 * name. Verification is off so that expired and private certificates are still observed; the
 * verdict is recorded instead. A target OUTBOUND_DENY forbids (the pinned address, or any address
 * the name resolves to) is a failed scan saying so, and the profile's connections go to the
 * address the handshake reached, never through a second resolution. Never throws for a network
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
      tlsProfile = await options.profile({ host, port: item.port, serverName: item.dnsName }, remaining).catch(() => null);
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
  return new Promise((resolve, reject) => {
    const target = `${item.ipAddress ?? item.dnsName}:${item.port}`;
    // Throws (rejecting the promise) for a denied IP literal; a name is checked by the guard's lookup.
    const socket = connect({
      ...guard.connectTo(item.ipAddress ?? item.dnsName),
      port: item.port,
      servername: isIP(item.dnsName) === 0 ? item.dnsName : undefined,
      rejectUnauthorized: false,
      secureContext: sharedProbeContext(),
    });
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(handshakeTimer);
      // Read the socket before closing it: address and protocol are gone once destroyed.
      outcome();
      socket.destroy();
    };
    // Deadlines: reaching the port, then finishing the handshake. A host that accepts TCP and
    // then says nothing is caught by the second.
    const connectTimer = setTimeout(
      () => finish(() => reject(new Error(`connection to ${target} timed out after ${connectTimeoutMs} ms`))),
      connectTimeoutMs,
    );
    const handshakeTimer = setTimeout(
      () => finish(() => reject(new Error(`TLS handshake with ${target} timed out after ${handshakeTimeoutMs} ms`))),
      handshakeTimeoutMs,
    );
    socket.once('connect', () => clearTimeout(connectTimer));
    socket.once('secureConnect', () => finish(() => resolve(describe(socket, item.dnsName))));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(() => reject(new Error(describeSocketError(error, target)))));
    socket.once('close', () => finish(() => reject(new Error(`${target} closed the connection during the handshake`))));
  });
}

function describe(socket: TLSSocket, dnsName: string): Handshake {
  const peer = socket.getPeerCertificate(true);
  let authorizationError = socket.authorized ? null : String(socket.authorizationError ?? 'the chain did not verify');
  if (!authorizationError && peer?.raw && isIP(dnsName) === 0) {
    authorizationError = checkServerIdentity(dnsName, peer)?.message ?? null;
  }
  const cipher = socket.getCipher();
  return {
    chain: presentedChain(peer),
    resolvedIp: socket.remoteAddress ?? null,
    tlsVersion: NODE_VERSION_NAMES[socket.getProtocol() ?? ''] ?? null,
    cipherSuite: cipher?.standardName ?? cipher?.name ?? null,
    authorized: authorizationError === null,
    authorizationError,
  };
}

/** The chain the server presented, leaf first, as PEM. Node links each certificate to its issuer. */
function presentedChain(leaf: DetailedPeerCertificate | undefined): string[] {
  const chain: string[] = [];
  const seen = new Set<string>();
  for (let certificate = leaf; certificate?.raw && !seen.has(certificate.fingerprint256); certificate = certificate.issuerCertificate) {
    seen.add(certificate.fingerprint256);
    chain.push(certificateToPem(certificate.raw));
  }
  return chain;
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
