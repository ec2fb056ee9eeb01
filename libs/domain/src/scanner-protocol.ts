/**
 * The scanner protocol: what agents read from and post to `/api/v1/scanner/*`. Shared by the
 * API and the agent, so neither hand-copies the other's shapes. The API trusts none of it: it
 * re-parses every certificate and document and recomputes every fingerprint and digest.
 */

export const TLS_VERSIONS = ['SSLv3', 'TLSv1.0', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
export type TlsVersionName = (typeof TLS_VERSIONS)[number];

/**
 * docs/api-contract.md section 13: the plain-text upgrades a host endpoint may ask for before the TLS
 * handshake (null: implicit TLS). Shared by the API (validation, the column's CHECK) and the agent.
 */
export const STARTTLS_PROTOCOLS = ['smtp', 'imap', 'pop3', 'ftp', 'ldap', 'postgres', 'xmpp'] as const;
export type StarttlsProtocol = (typeof STARTTLS_PROTOCOLS)[number];

/**
 * Most certificates of one presented chain an agent reports: the API refuses a longer one, and the
 * agent reports the first ones of a server that sends more (a real chain has two to four).
 */
export const MAX_PRESENTED_CHAIN = 20;

/** Most results one POST /api/v1/scanner/results carries; an agent never batches more. */
export const MAX_RESULTS_PER_POST = 1000;

/**
 * Bounds on what an agent may report, so one result cannot exhaust the server: the API refuses a
 * field beyond them, and the agent shortens its own error text to fit before it sends.
 */
export const RESULT_LIMITS = {
  error: 2000,
  chain: MAX_PRESENTED_CHAIN,
  pem: 64 * 1024,
  suites: 400,
  name: 200,
  url: 4096,
  document: 32 * 1024 * 1024,
} as const;

/**
 * Bounds on one post of sweep reports (POST /api/v1/scanner/sweep-reports): a sweep reports as it
 * goes, so a post is never large in count. The API refuses a post beyond them, and the agent splits
 * its findings over reports so that none is refused for its size.
 */
export const SWEEP_REPORT_LIMITS = { reports: 100, findings: 5000 } as const;

/** An agent's error text shortened to what the API takes (RESULT_LIMITS.error), so a report is never refused for its length. */
export function withinErrorLimit(error: string): string;
export function withinErrorLimit(error: string | null): string | null;
export function withinErrorLimit(error: string | null): string | null {
  if (error === null || error.length <= RESULT_LIMITS.error) return error;
  return `${error.slice(0, RESULT_LIMITS.error - 1)}…`;
}

/** GET /api/v1/scanner/config */
export interface ScannerConfig {
  id: string;
  name: string;
  isDefault: boolean;
  scanCronExpression: string;
  scanConcurrency: number;
  /** The ranges of the enabled discovery networks this scanner sweeps, for the operator's eye; sweeps arrive as work. */
  discoveryNetworks: string[];
}

export interface HostWorkItem {
  endpointId: string;
  type: 'host';
  dnsName: string;
  port: number;
  /** Connect here when set; SNI stays dnsName. */
  ipAddress: string | null;
  /**
   * A TLS profile costs tens of connections, so the API asks for one only when the endpoint has
   * none or its latest is older than a day; every other run is a single handshake.
   */
  tlsProfileDue: boolean;
  /**
   * The plain-text upgrade to speak before every TLS ClientHello, the profile's included; null
   * for implicit TLS. Absent from APIs that predate it, which the agent reads as null.
   */
  starttls?: StarttlsProtocol | null;
}
export type SamlWorkItem = { endpointId: string; type: 'saml'; metadataUrl: string };
export type WorkItem = HostWorkItem | SamlWorkItem;

/**
 * A queued discovery sweep of a network assigned to the calling scanner (docs/api-contract.md
 * section 8). The agent claims it with `POST /api/v1/scanner/sweeps/{sweepId}/start` before probing.
 */
export interface SweepWorkItem {
  sweepId: string;
  networkId: string;
  /** Normalised ranges (addresses, CIDR blocks, dash ranges): parse with parseNetworkScope. */
  ranges: string[];
  ports: number[];
}

/**
 * The longest `GET /api/v1/scanner/work?neverScanned=true&wait=` may hold a long-poll for due work
 * (docs/decisions/0012-scan-now.md); the agent's request deadline must exceed what it asks for.
 */
export const MAX_WORK_WAIT_SECONDS = 30;

/** GET /api/v1/scanner/work */
export interface WorkResponse {
  items: WorkItem[];
  /** Queued sweeps for this scanner, oldest request first. Absent from APIs that predate discovery. */
  sweeps?: SweepWorkItem[];
}

export interface TlsVersionSupport {
  version: TlsVersionName;
  supported: boolean;
  /** IANA names, in the server's order of preference when it has one. */
  cipherSuites: string[];
}

export interface TlsProfile {
  versions: TlsVersionSupport[];
  negotiatedVersion: TlsVersionName | null;
  negotiatedCipherSuite: string | null;
}

interface ResultBase {
  /** Chosen by the agent (a UUID); posting the same result again changes nothing. */
  resultId: string;
  endpointId: string;
  /** ISO 8601, when the probe ran. */
  scannedAt: string;
  success: boolean;
  /** Why the probe failed, in a short sentence; null on success. */
  error: string | null;
}

export interface HostScanResult extends ResultBase {
  type: 'host';
  /** The address the connection reached. */
  resolvedIp: string | null;
  tlsVersion: TlsVersionName | null;
  cipherSuite: string | null;
  /** Whether Node's default verification would have accepted the chain for the DNS name. */
  authorized: boolean | null;
  authorizationError: string | null;
  /** The presented chain as PEM blocks, leaf first, in the order the server sent them. */
  chain: string[];
  tlsProfile: TlsProfile | null;
}

export interface SamlScanResult extends ResultBase {
  type: 'saml';
  /** The URL the document was finally read from, after redirects. */
  finalUrl: string | null;
  /**
   * The address the document was read from (the last redirect hop's peer); null when none arrived.
   * Absent from agents that predate it, which the API reads as null.
   */
  resolvedIp?: string | null;
  /** The metadata document as fetched (UTF-8); the API parses it itself. */
  document: string | null;
  /** SHA-256 hex of the document's bytes as the agent saw them; the API recomputes it. */
  digest: string | null;
}

export type ScanResult = HostScanResult | SamlScanResult;

/** POST /api/v1/scanner/results */
export interface ResultsRequest {
  results: ScanResult[];
}

export type ResultOutcome =
  | { resultId: string; endpointId: string; status: 'accepted' }
  | { resultId: string; endpointId: string; status: 'duplicate' }
  | { resultId: string; endpointId: string; status: 'rejected'; code: 400 | 403 | 404; error: string };

export interface ResultsResponse {
  results: ResultOutcome[];
}

/** A TLS service a sweep found. The API re-parses the chain and derives names itself. */
export interface SweepFinding {
  address: string;
  port: number;
  /** The address's reverse-DNS name, when it has one; the handshake sent it as SNI (without, when the server refused it). */
  reverseName: string | null;
  /** The presented chain as PEM blocks, leaf first. */
  chain: string[];
  tlsVersion: TlsVersionName | null;
  cipherSuite: string | null;
}

/**
 * One batch of a running sweep: progress as absolute counts (so a repeated or late report never
 * moves progress backwards) and the services found since the previous batch.
 */
export interface SweepReport {
  /** Chosen by the agent (a UUID); posting the same report again changes nothing. */
  reportId: string;
  sweepId: string;
  /** Addresses whose every port is finished, so far. */
  addressesProbed: number;
  findings: SweepFinding[];
  /** The sweep's last report: it completed, or (with `error`) stopped early. */
  final: boolean;
  /** On a final report that stopped early, why (the agent was stopped, a bug); otherwise null. */
  error: string | null;
}

/** POST /api/v1/scanner/sweep-reports */
export interface SweepReportsRequest {
  reports: SweepReport[];
}

/**
 * Per report. `rejected` 403: the sweep belongs to another scanner; 404: no such sweep; 409: the
 * sweep is not running any more (finished, or failed after its agent went quiet): stop sweeping it.
 */
export type SweepReportOutcome =
  | { reportId: string; sweepId: string; status: 'accepted' | 'duplicate' }
  | { reportId: string; sweepId: string; status: 'rejected'; code: 400 | 403 | 404 | 409; error: string };

export interface SweepReportsResponse {
  reports: SweepReportOutcome[];
}

// Sizes both sides of POST /api/v1/scanner/results and /sweep-reports agree on.
const MiB = 1024 * 1024;

/** Largest SAML metadata document an agent fetches and reports. */
export const SAML_METADATA_MAX_BYTES = 16 * MiB;

/**
 * Largest results body the API reads, in bytes. One result must fit with the largest document:
 * JSON escapes well-formed XML at most twofold (`"`, `\`, tab, CR and LF become two characters;
 * other control characters cannot occur), plus 1 MiB for the rest of the result and the envelope.
 * An agent turns a result that still does not fit into a failed one rather than send it.
 */
export const RESULTS_BODY_LIMIT = 2 * SAML_METADATA_MAX_BYTES + MiB;

/** An agent closes a batch at this many bytes of JSON: few requests, and a cheap retry when one fails. */
export const RESULTS_BATCH_BYTES = 8 * MiB;
