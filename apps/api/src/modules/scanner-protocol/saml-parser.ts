import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable, Logger, type OnApplicationShutdown, ServiceUnavailableException } from '@nestjs/common';
import { Piscina } from 'piscina';
import type { SamlDocumentReading } from './saml-parse.worker';

/**
 * The compiled worker module. A thread cannot run TypeScript, so it always loads JavaScript built
 * by `npm run build`. Built (`npm start`, the images, apps/api/tools/bench) this file is itself
 * dist/.../saml-parser.js and the worker is its sibling. Under jest this file is TypeScript
 * transformed in memory, and the worker is taken from dist/, which `npm test` builds first: the
 * same way the agent and service-process tests run the built agent and server (docs/testing.md).
 */
export const SAML_PARSE_WORKER = __filename.endsWith('.js')
  ? join(__dirname, 'saml-parse.worker.js')
  : join(__dirname, '../../../../../dist/apps/api/src/modules/scanner-protocol/saml-parse.worker.js');

// One thread, so one document is parsed at a time per API process: parsing is CPU-bound, the
// images and the reference machine have two cores, and the event loop needs the other one.
const THREADS = 1;
// Documents waiting for the thread. One post applies up to ten results at once, so this holds the
// SAML results of three posts arriving together. Past it the post is answered 503, which agents
// treat as transient: they keep the batch and post it again later, and whatever was applied in
// the meantime is then a duplicate (docs/architecture.md, the scanner protocol).
const MAX_WAITING = 32;
// An idle thread exits after a minute; the next document starts another (under a second, spent
// loading the parser on that thread, not on the event loop).
const IDLE_TIMEOUT_MS = 60_000;

/**
 * Parses SAML metadata on a worker thread. A document may be 16 MiB and declare thousands of
 * certificates, each parsed with a signature check: done on the event loop that takes seconds
 * during which the API answers nothing. The pool starts with the first document, so an app that
 * never ingests SAML has no thread, and it is destroyed on shutdown, so nothing is left running.
 */
@Injectable()
export class SamlParser implements OnApplicationShutdown {
  private readonly logger = new Logger(SamlParser.name);
  private pool: Piscina<string, SamlDocumentReading> | null = null;
  private closed = false;

  /** Resolves once the worker has parsed the document; 503 when too many documents wait already. */
  async read(document: string): Promise<SamlDocumentReading> {
    const pool = this.poolOrStart();
    if (pool.queueSize >= MAX_WAITING) {
      throw new ServiceUnavailableException('Too many SAML metadata documents are waiting to be parsed; post these results again later.');
    }
    return await pool.run(document);
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    // Rejects whatever still waits or runs; those posts fail and their agents post them again.
    await pool?.destroy();
  }

  private poolOrStart(): Piscina<string, SamlDocumentReading> {
    if (this.closed) throw new ServiceUnavailableException('The API is shutting down.');
    if (this.pool) return this.pool;
    // Checked here because a pool whose worker cannot load would otherwise leave documents waiting.
    if (!existsSync(SAML_PARSE_WORKER)) {
      throw new Error(`SAML metadata cannot be parsed: the worker ${SAML_PARSE_WORKER} is not built; run "npm run build".`);
    }
    const pool = new Piscina<string, SamlDocumentReading>({
      filename: SAML_PARSE_WORKER,
      minThreads: 0,
      maxThreads: THREADS,
      concurrentTasksPerWorker: 1,
      idleTimeout: IDLE_TIMEOUT_MS,
    });
    // A thread that dies with no document of its own (it could not load its module, say) is
    // reported here; unheard, the event would crash the process. The pool is dropped so that what
    // waits fails now rather than never, and the next document starts a fresh one.
    pool.on('error', (error: unknown) => {
      this.logger.error(`The SAML parsing thread failed: ${error instanceof Error ? error.message : String(error)}`);
      if (this.pool === pool) this.pool = null;
      void pool.destroy();
    });
    this.pool = pool;
    return pool;
  }
}
