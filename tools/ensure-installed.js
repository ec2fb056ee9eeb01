// Runs before `npm start` and `npm test`: on a fresh clone (or after the lockfile changed) it
// installs the exact pinned dependencies, so the README's two commands work on their own.
// Plain CommonJS with Node builtins only, because nothing else is installed yet.
const { existsSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..');
const lockfile = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');

const upToDate = existsSync(installed) && statSync(installed).mtimeMs >= statSync(lockfile).mtimeMs;
if (!upToDate) {
  process.stderr.write('Installing dependencies (npm install)...\n');
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
