import 'reflect-metadata';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createApp } from '../../src/create-app';
import { buildOpenApiDocument } from '../../src/openapi/openapi';

/**
 * Writes apps/api/openapi.json from the code, or with --check fails when the committed file
 * differs. Runs the module graph in preview mode: no database, no listening socket.
 */
// Run from dist/apps/api/tools/openapi; the committed file is in the source tree.
export const OPENAPI_FILE = join(__dirname, '../../../../../apps/api/openapi.json');

export async function generateOpenApiJson(): Promise<string> {
  const app = await createApp(
    {
      port: 0,
      host: '127.0.0.1',
      databaseUrl: 'postgres://unused.invalid/unused',
      jwtSecret: randomBytes(32).toString('hex'),
      jwtTtlSeconds: 3600,
      encryptionKey: randomBytes(32),
      publicUrl: null,
      admin: { email: null, password: null },
      embeddedScanner: false,
      seedRootStores: false,
      retentionDays: 365,
      logLevel: 'error',
    },
    { preview: true, logger: false },
  );
  return `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
}

async function main(): Promise<void> {
  const generated = await generateOpenApiJson();
  if (process.argv.includes('--check')) {
    const committed = await readFile(OPENAPI_FILE, 'utf8').catch(() => '');
    if (committed !== generated) {
      process.stderr.write('apps/api/openapi.json is out of date: run `npm run openapi` and commit the result.\n');
      process.exit(1);
    }
    process.stdout.write('apps/api/openapi.json is up to date.\n');
    return;
  }
  await writeFile(OPENAPI_FILE, generated);
  process.stdout.write(`Wrote ${OPENAPI_FILE}\n`);
}

if (require.main === module) void main();
