import type { OutboundDenyList } from '@certkeeper/net';
import type { LogLevel, TrustProxy } from './environment';

/** Where the root-store refresh reads the CCADB data: http(s) or file:// addresses. */
export interface RootStoreSources {
  /** The all-included-roots CSV: which store includes which root (ROOT_STORES_CSV_URL). */
  csvUrl: string;
  /** PEM reports holding the roots' certificates; together they must cover every root of the CSV (ROOT_STORES_PEM_URLS). */
  pemUrls: string[];
  /** Deadline of each download, redirects included (ROOT_STORES_FETCH_TIMEOUT). */
  fetchTimeoutMs: number;
}

const CCADB = 'https://ccadb.my.salesforce-sites.com/ccadb';

/**
 * The public CCADB reports. The PEM reports are the all-certificate reports by decade of
 * notBefore: the per-program PEM reports only cover Mozilla and Microsoft, and a root only Apple
 * or Chrome includes would be missing from them, failing every refresh.
 */
export const CCADB_SOURCES: RootStoreSources = {
  csvUrl: `${CCADB}/AllIncludedRootCertsCSV`,
  pemUrls: ['1990', '2000', '2010', '2020'].map((decade) => `${CCADB}/AllCertificatePEMsCSVFormat?NotBeforeDecade=${decade}`),
  fetchTimeoutMs: 5 * 60 * 1000,
};

/**
 * Everything the running application needs, fully resolved: the database URL points at a running
 * server and the secrets exist. Built from the environment by `prepareRuntime`, or directly by tests.
 */
export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string;
  jwtSecret: string;
  jwtTtlSeconds: number;
  encryptionKey: Buffer;
  publicUrl: string | null;
  /**
   * The first administrator (ADMIN_EMAIL, ADMIN_PASSWORD). Without a password a random one is
   * written to `passwordFile` (DATA_DIR/initial-admin-password, mode 0600), never to a log line.
   * Absent `passwordFile` (tools, tests that always set the password): no random admin is made.
   */
  admin: { email: string | null; password: string | null; passwordFile?: string };
  embeddedScanner: boolean;
  /** Fill an empty Mozilla store from the roots bundled with Node.js at start-up (trust verdicts offline, day one). */
  seedRootStores: boolean;
  /** Scan history and historical links older than this are purged nightly (RETENTION_DAYS). */
  retentionDays: number;
  /** Absent: CCADB_SOURCES (tools that never refresh need not say). */
  rootStoreSources?: RootStoreSources;
  /** OUTBOUND_DENY; absent: the default list (tools and tests that never say still get the guard). */
  outboundDeny?: OutboundDenyList;
  /** TRUST_PROXY; absent: no proxy is trusted, the client's address is the peer's. */
  trustProxy?: TrustProxy;
  logLevel: LogLevel;
  /**
   * Deadline of each OIDC operation's calls to the identity provider (discovery, token, JWKS,
   * userinfo together). Absent: 10 seconds. Tests shorten it; there is no environment variable.
   */
  identityProviderTimeoutMs?: number;
  /**
   * Deadline of each database statement. Absent: 30 seconds (data-source-options.ts). Tests
   * shorten it to show that nothing long (a lock wait) runs as one statement; no environment variable.
   */
  statementTimeoutMs?: number;
  /**
   * Names this application's Passport strategies (`jwt:<applicationId>`, ...), so that several
   * applications in one process never answer each other's tokens (docs/decisions/0001). Default:
   * a random id, new for every application created.
   */
  applicationId?: string;
}

/** Injection token of the AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/** Injection token of this application's id: AppConfig.applicationId, or the random one chosen at creation. */
export const APPLICATION_ID = Symbol('APPLICATION_ID');
