import {
  TLS_VERSIONS,
  type StarttlsProtocol,
  type TlsProfile,
  type TlsVersionName,
  type TlsVersionSupport,
} from '@certkeeper/domain/protocol';
import {
  buildClientHello,
  canGenerateKeyShare,
  cipherSuiteName,
  cipherSuitesToOffer,
  compactCipherSuitesToOffer,
  generateKeyShare,
  NAMED_GROUPS,
  type ServerHello,
} from '@certkeeper/domain/tls';
import { OutboundGuard } from '@certkeeper/net';
import { type AnsweredResponse, exchangeHello, type ExchangeOutcome } from './tls/hello-exchange';

export interface TlsProfileTarget {
  /** Where to connect: an IP address or a DNS name. */
  host: string;
  port: number;
  /** Sent as SNI (unless it is an IP literal), and as the EHLO argument or XMPP's `to` when upgrading. */
  serverName: string;
  /** docs/api-contract.md section 13: every connection speaks this upgrade before its ClientHello; null or absent: implicit TLS. */
  starttls?: StarttlsProtocol | null;
}

export interface TlsProfileOptions {
  /** Per connection, to establish TCP. Default 5 s. */
  connectTimeoutMs?: number;
  /** Per connection, from writing the ClientHello to a complete answer (with STARTTLS, from connect: the upgrade counts). Default 5 s. */
  readTimeoutMs?: number;
  /** The whole profile, every connection included. Default 60 s. */
  deadlineMs?: number;
  signal?: AbortSignal;
  /** OUTBOUND_DENY, checked on every connection. Default: the default deny list. */
  guard?: OutboundGuard;
}

export interface TlsProfileResult {
  /** Null when the profile could not be completed; `error` says why. A partial profile is never returned. */
  profile: TlsProfile | null;
  /** TCP connections opened, the failed ones included. */
  connections: number;
  durationMs: number;
  error: string | null;
}

/**
 * TLS 1.2 goes first because nearly every server answers it with something: a ServerHello, a
 * lower version, or a protocol_version alert. Its answer tells us the host speaks TLS before we
 * spend connections on hellos that intolerant servers may leave unanswered.
 */
const PROBE_ORDER: readonly TlsVersionName[] = ['TLSv1.2', 'TLSv1.3', 'TLSv1.1', 'TLSv1.0', 'SSLv3'];

/** Alerts that mean "not this version / none of these suites"; any other refusal may be intolerance of the hello itself. */
const PLAIN_REFUSALS = new Set([40, 70, 71]); // handshake_failure, protocol_version, insufficient_security

/**
 * Which versions and suites a server accepts, from hand-built ClientHellos: per version, offer
 * the whole bundle, record the suite the server picks, drop it and ask again until the server
 * refuses. That costs (accepted suites + 1) connections per supported version and one per
 * refused version (plus one for a HelloRetryRequest, and one for a server that seems to choke on
 * the bundle), and lists suites in the server's order of preference (or in ours, for a server
 * that follows the client's). Every reported (version, suite) pair was named by a ServerHello of
 * that version, and every version's list ends with a refusal: nothing is inferred from another
 * version, whose suites and order a server may configure apart (RC4 for TLS 1.0 only, say). An
 * answer at a lower version than offered is kept, though (see noteFallback): it is that version's
 * first suite, and it rules out the versions in between. Versions are probed one after the
 * other, one connection at a time. Never throws for a network failure.
 */
export async function profileTls(target: TlsProfileTarget, options: TlsProfileOptions = {}): Promise<TlsProfileResult> {
  const session = new ProfileSession(target, options);
  try {
    const found = new Map<TlsVersionName, TlsVersionSupport>();
    for (const version of PROBE_ORDER) found.set(version, await enumerateVersion(session, version));
    return session.result(assembleProfile(TLS_VERSIONS.map((version) => found.get(version)!)), null);
  } catch (error) {
    if (error instanceof ProfileStopped) return session.result(null, error.message);
    throw error;
  }
}

async function enumerateVersion(session: ProfileSession, version: TlsVersionName): Promise<TlsVersionSupport> {
  const lead = session.leads.get(version);
  if (lead?.kind === 'unsupported') return { version, supported: false, cipherSuites: [] };
  const chosen: number[] = lead?.kind === 'first-pick' ? [lead.suite] : [];
  let offer = cipherSuitesToOffer(version).filter((suite) => !chosen.includes(suite));
  let retriedCompact = false;
  while (offer.length > 0) {
    const verdict = await session.ask(version, offer);
    if (verdict.kind === 'chose') {
      chosen.push(verdict.suite);
      offer = offer.filter((suite) => suite !== verdict.suite);
      continue;
    }
    // One retry with a small bundle when the very first hello met something other than a plain
    // "no": some servers choke on ~350 suites or an extension they do not know.
    if (chosen.length > 0 || retriedCompact || !verdict.maybeIntolerant || version === 'TLSv1.3') break;
    retriedCompact = true;
    offer = compactCipherSuitesToOffer(version);
  }
  return { version, supported: chosen.length > 0, cipherSuites: chosen.map(cipherSuiteName) };
}

function assembleProfile(versions: TlsVersionSupport[]): TlsProfile {
  const best = versions.findLast((support) => support.supported);
  return { versions, negotiatedVersion: best?.version ?? null, negotiatedCipherSuite: best?.cipherSuites[0] ?? null };
}

/** What one hello told us. `maybeIntolerant`: the refusal may be about the hello itself rather than the version or the suites. */
type Verdict = { kind: 'chose'; suite: number } | { kind: 'refused'; maybeIntolerant: boolean };

/**
 * What an answer at a lower version than the hello offered told about a version not yet probed:
 * the suite it chose is that version's first pick, and the versions in between are unsupported.
 */
type VersionLead = { kind: 'first-pick'; suite: number } | { kind: 'unsupported' };

/** Ends the whole profile: the host is unreachable, silent, not TLS, out of time, or the caller aborted. */
class ProfileStopped extends Error {}

class ProfileSession {
  connections = 0;
  /** Filled by noteFallback; read by enumerateVersion before it spends a connection. */
  readonly leads = new Map<TlsVersionName, VersionLead>();
  private readonly started = performance.now();
  private readonly limits: Required<Omit<TlsProfileOptions, 'signal' | 'guard'>>;
  /** Until some answer proves the host speaks TLS, silence or garbage means it does not. */
  private sawTls = false;
  /** The group of the TLS 1.3 key share; a HelloRetryRequest may ask for another, which later hellos then carry. */
  private keyShareGroup: number = NAMED_GROUPS.x25519;

  constructor(
    private readonly target: TlsProfileTarget,
    private readonly options: TlsProfileOptions,
  ) {
    this.limits = {
      connectTimeoutMs: options.connectTimeoutMs ?? 5000,
      readTimeoutMs: options.readTimeoutMs ?? 5000,
      deadlineMs: options.deadlineMs ?? 60_000,
    };
  }

  result(profile: TlsProfile | null, error: string | null): TlsProfileResult {
    return { profile, connections: this.connections, durationMs: Math.round(performance.now() - this.started), error };
  }

  /** One connection offering `suites` at `version`; what the server made of it. */
  async ask(version: TlsVersionName, suites: number[], afterRetryRequest = false): Promise<Verdict> {
    const outcome = await this.exchange(this.hello(version, suites));
    switch (outcome.kind) {
      case 'aborted':
        throw new ProfileStopped('the profile was aborted');
      case 'unreachable':
        throw new ProfileStopped(outcome.reason);
      case 'silent':
        if (!this.sawTls) throw new ProfileStopped(`no TLS answer within ${this.limits.readTimeoutMs} ms`);
        return { kind: 'refused', maybeIntolerant: true };
      case 'closed':
        return { kind: 'refused', maybeIntolerant: true };
      case 'answered':
        return this.judge(version, suites, outcome.response, afterRetryRequest);
    }
  }

  private hello(version: TlsVersionName, suites: number[]): Buffer {
    const keyShare = version === 'TLSv1.3' ? (generateKeyShare(this.keyShareGroup) ?? undefined) : undefined;
    return buildClientHello({ version, cipherSuites: suites, serverName: this.target.serverName, keyShare });
  }

  private async exchange(hello: Buffer): Promise<ExchangeOutcome> {
    if (this.options.signal?.aborted) throw new ProfileStopped('the profile was aborted');
    const remaining = this.remainingMs();
    if (remaining <= 0) throw this.deadlineExceeded();
    this.connections += 1;
    const readCutByDeadline = remaining < this.limits.readTimeoutMs;
    const outcome = await exchangeHello(this.target, hello, {
      connectTimeoutMs: Math.min(this.limits.connectTimeoutMs, remaining),
      readTimeoutMs: Math.min(this.limits.readTimeoutMs, remaining),
      signal: this.options.signal,
      guard: this.options.guard ?? OutboundGuard.DEFAULT,
    });
    // A timeout cut short by the overall deadline says nothing about the server. Timers run in
    // whole milliseconds and may fire a fraction early, so a read cut to the deadline is judged
    // by the cut, and the clock is given a millisecond of slack.
    if (outcome.kind === 'silent' && readCutByDeadline) throw this.deadlineExceeded();
    if ((outcome.kind === 'silent' || outcome.kind === 'unreachable') && this.remainingMs() <= 1) throw this.deadlineExceeded();
    return outcome;
  }

  private async judge(version: TlsVersionName, suites: number[], response: AnsweredResponse, afterRetryRequest: boolean): Promise<Verdict> {
    switch (response.kind) {
      case 'alert':
        this.sawTls = true;
        return { kind: 'refused', maybeIntolerant: !PLAIN_REFUSALS.has(response.description) };
      case 'sslv2':
      case 'malformed':
        if (!this.sawTls) {
          throw new ProfileStopped(response.kind === 'sslv2' ? 'the server answers only SSL 2.0' : `not a TLS server: ${response.reason}`);
        }
        return { kind: 'refused', maybeIntolerant: true };
      case 'server-hello':
        this.sawTls = true;
        if (response.hello.helloRetryRequest && !afterRetryRequest && this.switchKeyShareGroup(response.hello)) {
          return this.ask(version, suites, true);
        }
        this.noteFallback(version, suites, response.hello);
        return verdictOn(version, suites, response.hello);
    }
  }

  /**
   * A HelloRetryRequest asks for a share of another group. We answer on a fresh connection with a
   * real share of that group, and later TLS 1.3 hellos carry it from the start, so the retry costs
   * one connection per profile. When we cannot make that share (finite-field groups) or the server
   * asks again, the HelloRetryRequest itself is the answer: it already names the chosen suite.
   */
  private switchKeyShareGroup(hello: ServerHello): boolean {
    const wanted = hello.keyShareGroup;
    if (wanted === null || wanted === this.keyShareGroup || !canGenerateKeyShare(wanted)) return false;
    this.keyShareGroup = wanted;
    return true;
  }

  /**
   * A server that receives a hello above the highest version it supports MUST answer with that
   * highest version (RFC 5246 and RFC 4346, appendix E.1). Such an answer to a hello before TLS
   * 1.3 (whose version is a maximum; a TLS 1.3 hello lists TLS 1.3 alone) is a ServerHello of the
   * lower version like any other: its suite is what the whole bundle of that version would have
   * drawn, the bundles being the same suites in the same order less those the lower version cannot
   * carry. And the versions between the two are not supported. Only the first such answer for a
   * version counts, and only for a version not probed yet (PROBE_ORDER goes downwards below 1.3).
   */
  private noteFallback(offeredVersion: TlsVersionName, offered: number[], hello: ServerHello): void {
    const answered = hello.version;
    if (answered === null || offeredVersion === 'TLSv1.3' || this.leads.has(answered)) return;
    const [low, high] = [TLS_VERSIONS.indexOf(answered), TLS_VERSIONS.indexOf(offeredVersion)];
    if (low >= high) return;
    // A suite we did not offer, or one the lower version cannot carry, is a broken server: nothing to learn.
    if (!offered.includes(hello.cipherSuite) || !cipherSuitesToOffer(answered).includes(hello.cipherSuite)) return;
    this.leads.set(answered, { kind: 'first-pick', suite: hello.cipherSuite });
    for (const between of TLS_VERSIONS.slice(low + 1, high)) this.leads.set(between, { kind: 'unsupported' });
  }

  private remainingMs(): number {
    return this.limits.deadlineMs - (performance.now() - this.started);
  }

  private deadlineExceeded(): ProfileStopped {
    return new ProfileStopped(`the profile's ${this.limits.deadlineMs} ms deadline passed after ${this.connections} connections`);
  }
}

function verdictOn(version: TlsVersionName, offered: number[], hello: ServerHello): Verdict {
  // Another version means this one is not supported (a server answers with its best below ours).
  if (hello.version !== version) return { kind: 'refused', maybeIntolerant: false };
  // A suite we did not offer is a broken server; stopping here also keeps the loop finite.
  if (!offered.includes(hello.cipherSuite)) return { kind: 'refused', maybeIntolerant: false };
  return { kind: 'chose', suite: hello.cipherSuite };
}
