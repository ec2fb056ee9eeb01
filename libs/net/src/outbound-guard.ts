import { type LookupAddress, type LookupOptions, promises as dns } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { OutboundDenyList } from './outbound-deny';

/** Name resolution as the guard sees it: every address `hostname` has, for the requested family. */
export type Resolver = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

/** getaddrinfo, the resolver Node's own connections use (hosts file included), all addresses at once. */
const systemResolver: Resolver = (hostname, options) => dns.lookup(hostname, { ...options, all: true });

/** A connection OUTBOUND_DENY forbids. Carries a code like the network stack's own errors do. */
export class OutboundRefusedError extends Error {
  readonly code = 'EOUTBOUNDDENIED';

  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/**
 * Checks outbound connections against OUTBOUND_DENY after name resolution and pins them to the
 * addresses it checked: whoever connects uses the guard's own answer, so there is no second
 * lookup a hostile DNS server could answer differently (DNS rebinding). A name with any denied
 * address is refused outright, even if it has allowed ones too: a name that mixes a metadata
 * address into its answers is an attack or a mistake, and either deserves a clear error.
 *
 * Three ways in, one per kind of client (docs/architecture.md, Outbound connections):
 * - `connectTo(host)`: options for net/tls/http(s) connections; checks an IP literal at once,
 *   since Node calls `lookup` only for names, and hands over the guarded `lookup` for names.
 * - `lookup`: the guarded lookup alone, for clients that take one (an undici Agent's `connect`).
 * - `resolve(host)`: the checked addresses, for clients that resolve names themselves
 *   (nodemailer): give them an address from this list, and the name only for TLS.
 */
export class OutboundGuard {
  /** The default list with the system resolver: what probes use when no guard is given. */
  static readonly DEFAULT = new OutboundGuard(OutboundDenyList.DEFAULT);

  constructor(
    readonly denyList: OutboundDenyList,
    private readonly resolver: Resolver = systemResolver,
  ) {}

  /** Throws OutboundRefusedError when `address` is denied; `host` is the name it was resolved from. */
  checkAddress(address: string, host: string = address): void {
    const entry = this.denyList.entryFor(address);
    if (entry === null) return;
    const subject = host === address ? address : `${host} resolves to ${address}, which`;
    throw new OutboundRefusedError(`refused by OUTBOUND_DENY: ${subject} is in ${entry}`);
  }

  /**
   * The addresses to connect to: an IP literal as it is, a name resolved once. Rejects with
   * OutboundRefusedError when any of them is denied, and with the resolver's error (ENOTFOUND)
   * when the name does not resolve. Connect to what this returns, never to the name again.
   */
  async resolve(host: string, options: LookupOptions = {}): Promise<LookupAddress[]> {
    const family = isIP(host);
    if (family !== 0) {
      this.checkAddress(host);
      return [{ address: host, family }];
    }
    const addresses = await this.resolver(host, options);
    for (const { address } of addresses) this.checkAddress(address, host);
    return addresses;
  }

  /**
   * A `lookup` for net, tls, http(s) and anything built on them: the connection dials exactly the
   * addresses checked here. Answers both forms Node asks for (`all` for Happy Eyeballs, else one).
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname, { family: options.family, hints: options.hints }).then(
      (addresses) => {
        if (addresses.length === 0) return callback(notFound(hostname), []);
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };

  /**
   * Options for `net.connect`, `tls.connect` or `http(s).request` (spread them in): throws
   * OutboundRefusedError now for a denied IP literal, and for a name passes the guarded `lookup`.
   * `host` is a bare address or name (no URL brackets around IPv6).
   */
  connectTo(host: string): { host: string; lookup: LookupFunction } {
    if (isIP(host) !== 0) this.checkAddress(host);
    return { host, lookup: this.lookup };
  }
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}
