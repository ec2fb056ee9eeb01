import { isAbsolute, resolve } from 'node:path';
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
  logLevel: LogLevel;
}

/** Thrown with one line per bad variable, so an operator fixes them all in one go. */
export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigurationError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;
const MIN_JWT_TTL_SECONDS = 60;
const MAX_JWT_TTL_SECONDS = 30 * 24 * 3600;

/**
 * Parses the process environment once at start-up (CONTRACT section 7). Every variable is checked
 * before anything is reported, so the error names every bad variable at once.
 */
export function parseEnvironment(env: Env, cwd = process.cwd()): Environment {
  const problems: string[] = [];
  const value = (name: string): string | undefined => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  };
  const check = <T>(name: string, parse: (raw: string) => T | string, fallback: T): T => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const parsed = parse(raw);
    if (typeof parsed === 'string' && parsed.startsWith('!')) {
      problems.push(`${name}: ${parsed.slice(1)}`);
      return fallback;
    }
    return parsed as T;
  };

  const port = check('PORT', parsePort, 8080);
  const host = check('HOST', (raw) => raw, '0.0.0.0');
  const databaseUrl = check<string | null>('DATABASE_URL', parseDatabaseUrl, null);
  const dataDir = check('DATA_DIR', (raw) => (isAbsolute(raw) ? raw : resolve(cwd, raw)), resolve(cwd, 'data'));
  const jwtSecret = check<string | null>('JWT_SECRET', parseJwtSecret, null);
  const jwtTtlSeconds = check('JWT_TTL', parseDuration, 12 * 3600);
  const encryptionKey = check<Buffer | null>('ENCRYPTION_KEY', parseEncryptionKey, null);
  const publicUrl = check<string | null>('PUBLIC_URL', parsePublicUrl, null);
  const adminEmail = check<string | null>(
    'ADMIN_EMAIL',
    (raw) => (EMAIL_PATTERN.test(raw) ? raw.toLowerCase() : '!not an e-mail address'),
    null,
  );
  const adminPassword = check<string | null>('ADMIN_PASSWORD', (raw) => (raw.length >= 8 ? raw : '!must be at least 8 characters'), null);
  const embeddedScanner = check('EMBEDDED_SCANNER', parseBoolean, databaseUrl === null);
  const retentionDays = check(
    'RETENTION_DAYS',
    (raw) =>
      /^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 36500 ? Number(raw) : '!must be a whole number of days from 1 to 36500',
    365,
  );
  const rootStoreSources: RootStoreSources = {
    csvUrl: check('ROOT_STORES_CSV_URL', parseSourceUrl, CCADB_SOURCES.csvUrl),
    pemUrls: check('ROOT_STORES_PEM_URLS', parseSourceUrls, CCADB_SOURCES.pemUrls),
    fetchTimeoutMs: check('ROOT_STORES_FETCH_TIMEOUT', parseFetchTimeout, CCADB_SOURCES.fetchTimeoutMs),
  };
  const logLevel = check<LogLevel>(
    'LOG_LEVEL',
    (raw) => (LOG_LEVELS.includes(raw as LogLevel) ? raw : `!must be one of ${LOG_LEVELS.join(', ')}`),
    'info',
  );

  if (value('DATABASE_URL') !== undefined) {
    // With an external database the secrets must be shared by every replica, so they cannot be
    // generated locally.
    if (value('JWT_SECRET') === undefined) problems.push('JWT_SECRET: required when DATABASE_URL is set');
    if (value('ENCRYPTION_KEY') === undefined) problems.push('ENCRYPTION_KEY: required when DATABASE_URL is set');
  }
  if (problems.length > 0) throw new ConfigurationError(problems);

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
    logLevel,
  };
}

// Parsers return the parsed value, or a problem prefixed with "!".

function parsePort(raw: string): number | string {
  const port = Number(raw);
  return Number.isInteger(port) && port >= 0 && port <= 65535 && /^\d+$/.test(raw) ? port : '!must be an integer from 0 to 65535';
}

function parseDatabaseUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return url.protocol === 'postgres:' || url.protocol === 'postgresql:' ? raw : '!must be a postgres:// or postgresql:// URL';
  } catch {
    return '!must be a postgres:// or postgresql:// URL';
  }
}

function parseJwtSecret(raw: string): string {
  return raw.length >= 32 ? raw : '!must be at least 32 characters';
}

/** `90`, `90s`, `30m`, `12h` or `7d`. */
export function parseDuration(raw: string): number | string {
  const seconds = durationInSeconds(raw);
  if (seconds === null) return '!must be a duration such as 3600, 30m, 12h or 7d';
  if (seconds < MIN_JWT_TTL_SECONDS || seconds > MAX_JWT_TTL_SECONDS) return '!must be between 1 minute and 30 days';
  return seconds;
}

/** Milliseconds, from a duration in seconds (`90`, `90s`, `5m`) of 1 second to 1 hour. */
function parseFetchTimeout(raw: string): number | string {
  const seconds = durationInSeconds(raw);
  if (seconds === null) return '!must be a duration such as 300, 90s or 5m';
  if (seconds < 1 || seconds > 3600) return '!must be between 1 second and 1 hour';
  return seconds * 1000;
}

function durationInSeconds(raw: string): number | null {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw);
  if (!match) return null;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

// The problem names the variable, never its value: a source address may carry credentials.
function parseSourceUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return ['http:', 'https:', 'file:'].includes(url.protocol) ? raw : '!must be an http, https or file URL';
  } catch {
    return '!must be an http, https or file URL';
  }
}

/** Several addresses separated by commas (or white space); at least one. */
function parseSourceUrls(raw: string): string[] | string {
  const urls = raw.split(/[\s,]+/).filter(Boolean);
  if (urls.length === 0) return '!must name at least one http, https or file URL';
  const parsed = urls.map(parseSourceUrl);
  const problem = parsed.find((url) => url.startsWith('!'));
  return problem ?? parsed;
}

/** 32 bytes, as 64 hexadecimal characters or base64. */
function parseEncryptionKey(raw: string): Buffer | string {
  const key = /^[0-9a-fA-F]{64}$/.test(raw)
    ? Buffer.from(raw, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)
      ? Buffer.from(raw, 'base64')
      : null;
  return key?.length === 32 ? key : '!must be 32 bytes, as 64 hexadecimal characters or base64';
}

function parsePublicUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return '!must be an http or https URL';
    return raw.replace(/\/+$/, '');
  } catch {
    return '!must be an http or https URL';
  }
}

function parseBoolean(raw: string): boolean | string {
  const normalised = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(normalised)) return true;
  if (['false', '0', 'no', 'off'].includes(normalised)) return false;
  return '!must be true or false';
}
