import { Resolver } from 'node:dns/promises';
import { connect, type Socket } from 'node:net';
import { parseAddressValue, type ProbeTarget } from '@certkeeper/domain/discovery';
import type { TlsVersionName } from '@certkeeper/domain/protocol';
import { parseFirstCertificate } from '@certkeeper/domain/x509';
import { OutboundGuard } from '@certkeeper/net';
import { captureHandshake, HandshakeFailure } from '../probes/host-probe';

/** A TLS service a sweep found: what the inbox row is made of (docs/api-contract.md section 8). */
export interface DiscoveredService {
  address: string;
  port: number;
  /** The address's reverse-DNS name, when it has a usable one. */
  reverseName: string | null;
  /** The SNI the handshake sent: the reverse-DNS name, else none. */
  serverName: string | null;
  /** The reverse-DNS name, then the leaf's DNS SANs, lower case, each once. */
  hostnames: string[];
  /** The presented chain as PEM, leaf first. */
  chain: string[];
  tlsVersion: TlsVersionName | null;
  cipherSuite: string | null;
}

interface ResultBase {
  address: string;
  port: number;
  durationMs: number;
}

export type SweepProbeResult =
  | (ResultBase & { outcome: 'service'; service: DiscoveredService })
  | (ResultBase & { outcome: 'closed' })
  /** Nothing heard back in time: no answer to the connect, or no answer to the ClientHello (a tarpit). */
  | (ResultBase & { outcome: 'silent'; stage: 'connect' | 'handshake' })
  | (ResultBase & { outcome: 'refused-by-guard'; error: string })
  /** Connected, but the peer closed, reset or answered with something that ended the handshake. */
  | (ResultBase & { outcome: 'not-tls'; error: string });

/** A reverse-DNS name for an address, or null. Must not throw and must end by its own deadline. */
export type ReverseLookup = (address: string) => Promise<string | null>;

export interface SweepProbeOptions {
  /** OUTBOUND_DENY: a denied address is counted as refused and never connected to. */
  guard?: OutboundGuard;
  /** Reaching the port. Default 1.5 s: a sweep mostly meets silence, and must not wait long on it. */
  connectTimeoutMs?: number;
  /** The TLS handshake, on the connection the connect opened. Default 3 s. */
  handshakeTimeoutMs?: number;
  /** Default: dnsReverseLookup() with a 1 s deadline. Null: no reverse DNS, no SNI. */
  reverseLookup?: ReverseLookup | null;
}

export const SWEEP_CONNECT_TIMEOUT_MS = 1500;
export const SWEEP_HANDSHAKE_TIMEOUT_MS = 3000;
export const SWEEP_REVERSE_TIMEOUT_MS = 1000;

let defaultReverseLookup: ReverseLookup | undefined;

/**
 * Probes one (address, port) of a sweep (docs/api-contract.md section 8): a TCP connect with a short deadline
 * through the guard; when the port answers, the address's reverse-DNS name (only then, so empty
 * address space costs no DNS queries); then a TLS handshake on that same connection with that
 * name as SNI, or without SNI, capturing the presented chain. Never throws for a network failure
 * (CONVENTIONS 16): the outcome says what happened. The whole probe ends within connect + reverse
 * + handshake deadlines, plus one more connect and handshake when the server refuses the name,
 * plus POLITE_CLOSE_MS for a service that never answers the close of its session.
 *
 * One connection per target: the handshake is host-probe's `captureHandshake` over the socket the
 * connect opened, so the capture code exists once and a sweep does not knock twice. Failures are
 * told apart by error code and failure kind, never by message text.
 */
export async function probeSweepTarget(target: ProbeTarget, options: SweepProbeOptions = {}): Promise<SweepProbeResult> {
  const started = Date.now();
  const base = () => ({ address: target.address, port: target.port, durationMs: Date.now() - started });
  const guard = options.guard ?? OutboundGuard.DEFAULT;
  const connectTimeoutMs = options.connectTimeoutMs ?? SWEEP_CONNECT_TIMEOUT_MS;
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? SWEEP_HANDSHAKE_TIMEOUT_MS;
  try {
    const reached = await tcpConnect(target, guard, connectTimeoutMs);
    if (reached.outcome === 'refused-by-guard') return { ...base(), outcome: 'refused-by-guard', error: reached.error };
    if (reached.outcome === 'closed') return { ...base(), outcome: 'closed' };
    if (reached.outcome === 'silent') return { ...base(), outcome: 'silent', stage: 'connect' };

    const lookup = options.reverseLookup === undefined ? (defaultReverseLookup ??= dnsReverseLookup()) : options.reverseLookup;
    let reverseName: string | null;
    try {
      // Through then(): a lookup that throws at once must not leave the open socket behind.
      reverseName = lookup
        ? await Promise.resolve(target.address)
            .then(lookup)
            .catch(() => null)
        : null;
    } finally {
      // Until captureHandshake owns the socket, its errors (a reset during the lookup) are ours
      // to swallow; the handshake then sees the socket closed.
      reached.stopListening();
    }
    const handshake = (socket: Socket, serverName: string | null) =>
      captureHandshake(socket, { serverName, handshakeTimeoutMs, target: `${target.address}:${target.port}` }).then(
        (captured) => ({ ok: true as const, captured }),
        (error: unknown) => ({ ok: false as const, error }),
      );
    let serverName = reverseName;
    let scan = await handshake(reached.socket, serverName);
    if (!scan.ok && serverName !== null && failureOf(scan.error).outcome === 'not-tls') {
      // A server may refuse a name it does not serve (an unrecognized_name alert) yet answer
      // without SNI: the default certificate is still a finding. That costs a second connection,
      // as the first is spent once the alert arrives.
      const again = await tcpConnect(target, guard, connectTimeoutMs);
      if (again.outcome === 'open') {
        again.stopListening();
        const unnamed = await handshake(again.socket, null);
        if (unnamed.ok) [scan, serverName] = [unnamed, null];
      }
    }
    if (!scan.ok) return { ...base(), ...failureOf(scan.error) };
    const { chain, tlsVersion, cipherSuite } = scan.captured;
    const service: DiscoveredService = {
      address: target.address,
      port: target.port,
      reverseName,
      serverName,
      hostnames: hostnamesOf(reverseName, chain[0]),
      chain,
      tlsVersion,
      cipherSuite,
    };
    return { ...base(), outcome: 'service', service };
  } catch (error) {
    // Nothing above should throw; should something, the target is reported as unanswered, not lost.
    return { ...base(), outcome: 'not-tls', error: error instanceof Error ? error.message : String(error) };
  }
}

type Reached =
  | { outcome: 'open'; socket: Socket; stopListening: () => void }
  | { outcome: 'closed' }
  | { outcome: 'silent' }
  | { outcome: 'refused-by-guard'; error: string };

/**
 * Connects through the guard: is anything listening? When so, the open socket is handed on for
 * the handshake, with a listener swallowing its errors until `stopListening`.
 */
function tcpConnect(target: ProbeTarget, guard: OutboundGuard, timeoutMs: number): Promise<Reached> {
  let options: ReturnType<OutboundGuard['connectTo']>;
  try {
    // Throws for a denied address: it is refused here, before any packet is sent.
    options = guard.connectTo(target.address);
  } catch (error) {
    return Promise.resolve({ outcome: 'refused-by-guard', error: error instanceof Error ? error.message : String(error) });
  }
  return new Promise((resolve) => {
    const socket = connect({ ...options, port: target.port });
    let settled = false;
    const swallow = () => undefined;
    const finish = (reached: Reached) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (reached.outcome !== 'open') socket.destroy();
      resolve(reached);
    };
    const timer = setTimeout(() => finish({ outcome: 'silent' }), timeoutMs);
    socket.once('connect', () => {
      socket.on('error', swallow);
      finish({ outcome: 'open', socket, stopListening: () => socket.off('error', swallow) });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      switch (error.code ?? '') {
        case 'EOUTBOUNDDENIED':
          return finish({ outcome: 'refused-by-guard', error: error.message });
        case 'ECONNREFUSED':
        case 'ECONNRESET':
          return finish({ outcome: 'closed' });
        default:
          // Unreachable hosts and networks, and anything else: nobody answered.
          return finish({ outcome: 'silent' });
      }
    });
  });
}

/** A handshake on an open connection failed: silence is a tarpit, anything else is not TLS. */
function failureOf(error: unknown): { outcome: 'silent'; stage: 'handshake' } | { outcome: 'not-tls'; error: string } {
  if (error instanceof HandshakeFailure && error.kind === 'timeout') return { outcome: 'silent', stage: 'handshake' };
  return { outcome: 'not-tls', error: error instanceof Error ? error.message : String(error) };
}

/** The reverse-DNS name, then the leaf's DNS SANs (IP, e-mail and URI SANs left out), each once. */
function hostnamesOf(reverseName: string | null, leafPem: string | undefined): string[] {
  const names = reverseName ? [reverseName] : [];
  if (leafPem) {
    const parsed = parseFirstCertificate(leafPem);
    if ('certificate' in parsed) {
      for (const san of parsed.certificate.sans) {
        if (parseAddressValue(san) === null && !san.includes('@') && !san.includes('://')) names.push(san.toLowerCase());
      }
    }
  }
  return [...new Set(names)];
}

/**
 * node:dns `reverse` (a PTR query to the system's resolver) ended by its own deadline. The first
 * name that is a plausible host name is kept, lower case, without the trailing dot; anything else
 * (no answer, an error, a malformed name) is null.
 */
export function dnsReverseLookup(timeoutMs = SWEEP_REVERSE_TIMEOUT_MS): ReverseLookup {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  return async (address) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<string[]>((resolve) => {
      timer = setTimeout(() => resolve([]), timeoutMs);
    });
    try {
      const names = await Promise.race([resolver.reverse(address), deadline]);
      return names.map(usableHostname).find((name) => name !== null) ?? null;
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  };
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*$/;

/** A PTR answer as a host name usable for SNI, or null. */
export function usableHostname(name: string): string | null {
  const lower = name.trim().toLowerCase().replace(/\.$/, '');
  return HOSTNAME.test(lower) && parseAddressValue(lower) === null ? lower : null;
}
