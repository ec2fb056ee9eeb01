import type { LogLevel } from './environment';

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
  admin: { email: string | null; password: string | null };
  embeddedScanner: boolean;
  /** Fill an empty Mozilla store from the roots bundled with Node.js at start-up (trust verdicts offline, day one). */
  seedRootStores: boolean;
  /** Scan history and historical links older than this are purged nightly (RETENTION_DAYS). */
  retentionDays: number;
  logLevel: LogLevel;
}

/** Injection token of the AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');
