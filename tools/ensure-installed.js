// Runs before `npm start` and `npm test` (and from tools/build.js, so before `npm run scanner` and
// the other scripts that build): on a fresh clone (or after the lockfile changed) it installs the
// exact pinned dependencies, so the README's commands work on their own.
//
// "Changed" is judged by content first: after an install it records the lockfile's SHA-256 in
// node_modules, and a lockfile with that digest is current whatever its mtime. A copy gives the
// lockfile a new mtime without new content (`COPY . .` in docker/*.Dockerfile, a fresh checkout),
// which must not install again. Without that record (npm install run by hand) node_modules is
// current when npm's own record of it is newer than the lockfile.
// Plain CommonJS with Node builtins only, because nothing else is installed yet.
const { createHash } = require('node:crypto');
const { existsSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..');
const lockfile = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');
const installedDigest = join(root, 'node_modules', '.certkeeper-lockfile.sha256');

function lockfileDigest() {
  return createHash('sha256').update(readFileSync(lockfile)).digest('hex');
}

function upToDate() {
  if (!existsSync(installed)) return false;
  if (existsSync(installedDigest) && readFileSync(installedDigest, 'utf8').split('\n').includes(lockfileDigest())) return true;
  return statSync(installed).mtimeMs >= statSync(lockfile).mtimeMs;
}

/** Installs when node_modules is missing or older than the lockfile; returns an exit status (0: ready). */
function ensureInstalled() {
  if (upToDate()) return 0;
  const installedFrom = lockfileDigest();
  process.stderr.write('Installing dependencies (npm install)...\n');
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) return result.status ?? 1;
  // Both digests: the lockfile installed from, and the one npm may have rewritten it to (another
  // npm version, as in the images, records platform packages differently). A later copy of the
  // committed lockfile (`COPY . .`) then matches the first.
  writeFileSync(installedDigest, `${installedFrom}\n${lockfileDigest()}\n`);
  return 0;
}

module.exports = { ensureInstalled };

if (require.main === module) process.exitCode = ensureInstalled();
