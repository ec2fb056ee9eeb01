import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The version of this Certkeeper, from the repository's package.json (found by walking up from
 * this file: the sources and dist/ sit at different depths), `unknown` when it cannot be read.
 */
function readVersion(): string {
  for (let directory = __dirname; ; directory = dirname(directory)) {
    try {
      const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'certkeeper' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json here (or not ours): keep walking up.
    }
    if (dirname(directory) === directory) return 'unknown';
  }
}

export const CERTKEEPER_VERSION = readVersion();

/** What outbound requests name themselves (docs/api-contract.md section 17). */
export const USER_AGENT = `Certkeeper/${CERTKEEPER_VERSION}`;
