// Runs before `npm start` and `npm test` (and from tools/build.js, so before `npm run scanner` and
// the other scripts that build): on a fresh clone (or after the lockfile changed) it installs the
// exact pinned dependencies, so the README's commands work on their own.
// Plain CommonJS with Node builtins only, because nothing else is installed yet.
const { existsSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..');
const lockfile = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');

/** Installs when node_modules is missing or older than the lockfile; returns an exit status (0: ready). */
function ensureInstalled() {
  const upToDate = existsSync(installed) && statSync(installed).mtimeMs >= statSync(lockfile).mtimeMs;
  if (upToDate) return 0;
  process.stderr.write('Installing dependencies (npm install)...\n');
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  return result.status ?? 1;
}

module.exports = { ensureInstalled };

if (require.main === module) process.exitCode = ensureInstalled();
