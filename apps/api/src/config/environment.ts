import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import {
  accept,
  durationInSeconds,
  type Env,
  EnvironmentReader,
  integerFrom,
  parseBoolean,
  type Parsed,
  refuse,
  urlWith,
} from '@certkeeper/domain';
import { OutboundDenyList, parseOutboundDeny } from '@certkeeper/net';
import { CCADB_SOURCES, type RootStoreSources } from './app-config';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** What the operator configured, validated. Secrets may still be missing in embedded mode. */
export interface Environment {
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  jwtSecret: string | null;
  jwtTtlSeconds: number;
  encryptionKey: Buffer | null;
  publicUrl: string | null;
  adminEmail: string | null;
  adminPassword: string | null;
  embeddedScanner: boolean;
  retentionDays: number;
  rootStoreSources: RootStoreSources;
  /** OUTBOUND_DENY: what no outbound connection (SMTP, OIDC, the embedded agent's probes) may reach. */
  outboundDeny: OutboundDenyList;
  /** TRUST_PROXY: which reverse proxies may name the client's address (X-Forwarded-For); false: none. */
  trustProxy: TrustProxy;
  logLevel: LogLevel;
}

/** Express's `trust proxy`: nothing, a number of proxy hops, or the proxies' addresses and CIDR blocks. */
export type TrustProxy = false | number | string[];

export { ConfigurationError } from '@certkeeper/domain';

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;
const MIN_JWT_TTL_SECONDS = 60;
const MAX_JWT_TTL_SECONDS = 30 * 24 * 3600;

/**
 * Parses the process environment once at start-up (docs/api-contract.md section 7). Every variable is checked
 * before anything is reported, so the error names every bad variable at once; no message repeats
 * a value (docs/architecture.md, Configuration).
 */
export function parseEnvironment(env: Env, cwd = process.cwd()): Environment {
  const reader = new EnvironmentReader(env);
  const read = reader.read.bind(reader);

  const port = read('PORT', integerFrom(0, 65535, 'an integer'), 8080);
  const host = read('HOST', accept, '0.0.0.0');
  const databaseUrl = read<string | null>(
    'DATABASE_URL',
    urlWith(['postgres:', 'postgresql:'], 'a postgres:// or postgresql:// URL'),
    null,
  );
  const dataDir = read('DATA_DIR', (raw) => accept(isAbsolute(raw) ? raw : resolve(cwd, raw)), resolve(cwd, 'data'));
  const jwtSecret = read<string | null>('JWT_SECRET', parseJwtSecret, null);
  const jwtTtlSeconds = read('JWT_TTL', parseDuration, 12 * 3600);
  const encryptionKey = read<Buffer | null>('ENCRYPTION_KEY', parseEncryptionKey, null);
  const publicUrl = read<string | null>('PUBLIC_URL', parsePublicUrl, null);
  const adminEmail = read<string | null>(
    'ADMIN_EMAIL',
    (raw) => (EMAIL_PATTERN.test(raw) ? accept(raw.toLowerCase()) : refuse('not an e-mail address')),
    null,
  );
  const adminPassword = read<string | null>(
    'ADMIN_PASSWORD',
    (raw) => (raw.length >= 8 ? accept(raw) : refuse('must be at least 8 characters')),
    null,
  );
  const embeddedScanner = read('EMBEDDED_SCANNER', parseBoolean, databaseUrl === null);
  const retentionDays = read('RETENTION_DAYS', integerFrom(1, 36500, 'a whole number of days'), 365);
  const rootStoreSources: RootStoreSources = {
    csvUrl: read('ROOT_STORES_CSV_URL', parseSourceUrl, CCADB_SOURCES.csvUrl),
    pemUrls: read('ROOT_STORES_PEM_URLS', parseSourceUrls, CCADB_SOURCES.pemUrls),
    fetchTimeoutMs: read('ROOT_STORES_FETCH_TIMEOUT', parseFetchTimeout, CCADB_SOURCES.fetchTimeoutMs),
  };
  const outboundDeny = read('OUTBOUND_DENY', parseOutboundDeny, OutboundDenyList.DEFAULT);
  const trustProxy = read<TrustProxy>('TRUST_PROXY', parseTrustProxy, false);
  const logLevel = read<LogLevel>(
    'LOG_LEVEL',
    (raw) => (LOG_LEVELS.includes(raw as LogLevel) ? accept(raw as LogLevel) : refuse(`must be one of ${LOG_LEVELS.join(', ')}`)),
    'info',
  );

  if (reader.raw('DATABASE_URL') !== undefined) {
    // With an external database the secrets must be shared by every replica, so they cannot be
    // generated locally.
    if (reader.raw('JWT_SECRET') === undefined) reader.problem('JWT_SECRET', 'required when DATABASE_URL is set');
    if (reader.raw('ENCRYPTION_KEY') === undefined) reader.problem('ENCRYPTION_KEY', 'required when DATABASE_URL is set');
  }
  reader.finish();

  return {
    port,
    host,
    databaseUrl,
    dataDir,
    jwtSecret,
    jwtTtlSeconds,
    encryptionKey,
    publicUrl,
    adminEmail,
    adminPassword,
    embeddedScanner,
    retentionDays,
    rootStoreSources,
    outboundDeny,
    trustProxy,
    logLevel,
  };
}

const PROXY_PRESETS = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * `false` (the default), a hop count from 1 to 10, or a comma-separated list of addresses, CIDR
 * blocks and Express's presets (loopback, linklocal, uniquelocal). Never "true": believing any
 * X-Forwarded-For lets every client choose the address the sign-in limits count against.
 */
export function parseTrustProxy(raw: string): Parsed<TrustProxy> {
  const value = raw.trim();
  if (value === '' || value === 'false') return accept(false);
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops >= 1 && hops <= 10 ? accept(hops) : refuse('a hop count must be from 1 to 10');
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !PROXY_PRESETS.includes(entry) && !isAddressOrBlock(entry));
  if (bad !== undefined) return refuse(`must be false, a hop count, or addresses, CIDR blocks and ${PROXY_PRESETS.join(', ')}`);
  return accept(entries);
}

function isAddressOrBlock(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function parseJwtSecret(raw: string): Parsed<string> {
  return raw.length >= 32 ? accept(raw) : refuse('must be at least 32 characters');
}

/** `90`, `90s`, `30m`, `12h` or `7d`, from 1 minute to 30 days. */
export function parseDuration(raw: string): Parsed<number> {
  const seconds = durationInSeconds(raw);
  if (seconds === null) return refuse('must be a duration such as 3600, 30m, 12h or 7d');
  if (seconds < MIN_JWT_TTL_SECONDS || seconds > MAX_JWT_TTL_SECONDS) return refuse('must be between 1 minute and 30 days');
  return accept(seconds);
}

/** Milliseconds, from a duration in seconds (`90`, `90s`, `5m`) of 1 second to 1 hour. */
function parseFetchTimeout(raw: string): Parsed<number> {
  const seconds = durationInSeconds(raw);
  if (seconds === null) return refuse('must be a duration such as 300, 90s or 5m');
  if (seconds < 1 || seconds > 3600) return refuse('must be between 1 second and 1 hour');
  return accept(seconds * 1000);
}

// A source address may carry credentials: the problem names the variable, never the address.
const parseSourceUrl = urlWith(['http:', 'https:', 'file:'], 'an http, https or file URL');

/** Several addresses separated by commas (or white space); at least one. */
function parseSourceUrls(raw: string): Parsed<string[]> {
  const urls = raw.split(/[\s,]+/).filter(Boolean);
  if (urls.length === 0) return refuse('must name at least one http, https or file URL');
  for (const url of urls) {
    const parsed = parseSourceUrl(url);
    if (!parsed.ok) return parsed;
  }
  return accept(urls);
}

/** 32 bytes, as 64 hexadecimal characters or base64. */
function parseEncryptionKey(raw: string): Parsed<Buffer> {
  const key = /^[0-9a-fA-F]{64}$/.test(raw)
    ? Buffer.from(raw, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)
      ? Buffer.from(raw, 'base64')
      : null;
  return key?.length === 32 ? accept(key) : refuse('must be 32 bytes, as 64 hexadecimal characters or base64');
}

function parsePublicUrl(raw: string): Parsed<string> {
  const parsed = urlWith(['http:', 'https:'], 'an http or https URL')(raw);
  return parsed.ok ? accept(parsed.value.replace(/\/+$/, '')) : parsed;
}
