import 'reflect-metadata';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../../src/config/app-config';
import { createApp } from '../../src/create-app';
import { withBenchDatabase } from './lib';

/**
 * Runs `work` against the application in this process, on a fresh embedded PostgreSQL that is
 * removed afterwards: for benchmarks that time a service method rather than HTTP.
 */
export async function withInProcessApp(
  name: string,
  overrides: Partial<AppConfig>,
  work: (app: NestExpressApplication, databaseUrl: string) => Promise<void>,
): Promise<void> {
  await withBenchDatabase(name, async (database) => {
    const app = await createApp(
      {
        port: 0,
        host: '127.0.0.1',
        databaseUrl: database.url,
        jwtSecret: randomBytes(32).toString('hex'),
        jwtTtlSeconds: 3600,
        encryptionKey: randomBytes(32),
        publicUrl: null,
        admin: { email: 'bench@example.com', password: 'bench-password-1' },
        embeddedScanner: false,
        seedRootStores: false,
        retentionDays: 365,
        logLevel: 'error',
        ...overrides,
      },
      { logger: false },
    );
    try {
      await app.init();
      await work(app, database.url);
    } finally {
      await app.close();
    }
  });
}

/** One figure line: label, median, the runs, the target. */
export function printFigure(label: string, runsMs: number[], target: string, unit: 's' | 'ms' = 's'): void {
  const format = (ms: number) => (unit === 's' ? (ms / 1000).toFixed(2) : ms.toFixed(0));
  const sorted = [...runsMs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const goal = target === '' ? '' : `   target ${target}`;
  process.stdout.write(`  ${label.padEnd(60)} median ${format(median)} ${unit}   [${runsMs.map(format).join(', ')}]${goal}\n`);
}

export function runBenchmark(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
