// Compiles what one target needs into dist/ with SWC, and skips SWC when dist/ is already current
// for that target (decision 0002):
//
//   node tools/build.js scanner   apps/scanner/src + libs/*/src                 (npm run scanner)
//   node tools/build.js api       apps/api/src + apps/scanner/src + libs/*/src  (npm start: the API
//                                 runs the built agent as its embedded scanner)
//   node tools/build.js all       apps libs tools                               (tests, tools, benches)
//   node tools/build.js --force all                                             (npm run build)
//
// The api and all targets also bundle the web interface (apps/web) with Vite into dist/apps/web
// (tools/build-web.mjs), under the same rule: only when apps/web, the generated API client types
// or the build settings changed since the last bundle (stamp dist/.build-web.json), so `npm start`
// stays fast once the bundle exists.
//
// "Current" means: a stamp in dist/ (written after a successful build) records the exact list of
// the target's compiled sources with each one's mtime and size, plus .swcrc, tsconfig.base.json,
// package-lock.json and this file; any edit (newer or older mtime), added, deleted or renamed
// source changes it. Every expected output must also still exist. After compiling, outputs whose
// source is gone are deleted, so a renamed module leaves no stale copy behind.
// Plain CommonJS with Node builtins, like ensure-installed.js.
'use strict';
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ensureInstalled } = require('./ensure-installed');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');
const SHARED_INPUTS = ['.swcrc', 'tsconfig.base.json', 'package-lock.json', path.relative(root, __filename)];
// What @swc/cli compiles (its DEFAULT_EXTENSIONS); dot files and dot folders are skipped, as its glob does.
const COMPILED_EXTENSIONS = new Set(['.js', '.jsx', '.es6', '.es', '.mjs', '.ts', '.tsx', '.cts', '.mts']);

/** Source roots of each target, relative to the repository root. libs/* are discovered, not listed. */
function targetRoots(target) {
  const libs = listDirs('libs')
    .map((name) => `libs/${name}/src`)
    .filter((dir) => isDir(dir));
  switch (target) {
    case 'scanner':
      return ['apps/scanner/src', ...libs];
    case 'api':
      return ['apps/api/src', 'apps/scanner/src', ...libs];
    case 'all':
      return ['apps', 'libs', 'tools'].filter((dir) => isDir(dir));
    default:
      return null;
  }
}
const TARGETS = ['scanner', 'api', 'all'];

function main(argv) {
  const force = argv.includes('--force');
  const target = argv.find((arg) => !arg.startsWith('-'));
  const roots = target && targetRoots(target);
  if (!roots) {
    process.stderr.write(`usage: node tools/build.js [--force] <${TARGETS.join('|')}>\n`);
    return 2;
  }
  const phases = new Phases(target);
  try {
    const installStatus = phases.time('installCheck', ensureInstalled);
    if (installStatus !== 0) return installStatus;

    const webStatus = target === 'scanner' ? 0 : phases.time('web', () => buildWeb(force));
    if (webStatus !== 0) return webStatus;

    return phases.time('build', () => buildTarget(target, roots, force));
  } finally {
    phases.report();
  }
}

/**
 * How long each step took, in ms. With LOG_LEVEL=debug (as for the API) they are printed as one
 * line of the API's JSON log format, so `npm start` shows every start-up phase, these included.
 */
class Phases {
  constructor(target) {
    this.fields = { target };
  }

  time(name, step) {
    const started = performance.now();
    try {
      return step();
    } finally {
      this.fields[name] = Math.round(performance.now() - started);
    }
  }

  report() {
    if (process.env.LOG_LEVEL !== 'debug') return;
    const entry = { time: new Date().toISOString(), level: 'debug', context: 'Build', msg: 'Build phases (ms)', ...this.fields };
    process.stdout.write(`${JSON.stringify(entry)}\n`);
  }
}

/** Compiles the target with SWC unless its stamp shows dist/ is current; returns an exit status. */
function buildTarget(target, roots, force) {
  const exclude = swcExclude();
  const inputs = listInputs(roots, exclude);
  const fingerprint = fingerprintOf(inputs);
  const stampFile = stampPath(target);
  if (!force) {
    const reason = staleReason(stampFile, fingerprint, inputs);
    if (!reason) return 0;
    process.stderr.write(`Compiling ${target} (${inputs.length} files): ${reason}\n`);
  }

  // Targets whose roots this build covers get their stamps too (all covers api and scanner),
  // fingerprinted now, before compiling: an edit made during the build is seen next time.
  const covered = TARGETS.filter((other) => other !== target && targetRoots(other).every((dir) => roots.some((r) => within(dir, r))));
  const coveredStamps = covered.map((other) => {
    const otherInputs = listInputs(targetRoots(other), exclude);
    return { file: stampPath(other), fingerprint: fingerprintOf(otherInputs) };
  });

  const status = runSwc(roots);
  if (status !== 0) return status;
  pruneOrphans(roots, inputs);
  for (const stamp of [{ file: stampFile, fingerprint }, ...coveredStamps]) writeStamp(stamp.file, stamp.fingerprint);
  return 0;
}

const WEB_SOURCES = 'apps/web';
const WEB_OUTPUT = path.join(dist, 'apps/web');
const WEB_INPUTS = [
  'tools/openapi/client/schema.d.ts',
  'libs/domain/src/roles.ts',
  'libs/domain/src/lifetime-thresholds.ts',
  'tools/build-web.mjs',
  'package-lock.json',
  path.relative(root, __filename),
];

/** Bundles apps/web into dist/apps/web unless the stamp says the bundle matches its inputs. */
function buildWeb(force) {
  if (!isDir(WEB_SOURCES)) return 0;
  const inputs = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else inputs.push(rel);
    }
  };
  walk(WEB_SOURCES);
  inputs.sort();
  const hash = createHash('sha256');
  for (const rel of [...WEB_INPUTS, ...inputs]) {
    let line = `${rel}\tmissing`;
    try {
      const stat = fs.statSync(path.join(root, rel));
      line = `${rel}\t${stat.mtimeMs}\t${stat.size}`;
    } catch {
      // A missing input is part of the state too.
    }
    hash.update(`${line}\n`);
  }
  const fingerprint = { digest: hash.digest('hex'), files: inputs.length };
  const stampFile = stampPath('web');
  if (!force) {
    let stamp = null;
    try {
      stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
    } catch {
      // No previous bundle.
    }
    const current = stamp?.digest === fingerprint.digest && fs.existsSync(path.join(WEB_OUTPUT, 'index.html'));
    if (current) return 0;
    process.stderr.write(`Bundling web (${inputs.length} files): ${stamp ? 'sources changed' : 'no previous build'}\n`);
  }
  const result = spawnSync(process.execPath, [path.join(root, 'tools/build-web.mjs')], { cwd: root, stdio: 'inherit' });
  if (result.error) throw result.error;
  if (result.status !== 0) return result.status ?? 1;
  writeStamp(stampFile, { ...fingerprint, newestInputMtime: null });
  return 0;
}

function runSwc(roots) {
  let swc;
  try {
    const cliDir = path.dirname(require.resolve('@swc/cli/package.json', { paths: [root] }));
    swc = path.join(cliDir, require(path.join(cliDir, 'package.json')).bin.swc);
  } catch {
    process.stderr.write('tools/build.js: @swc/cli is not installed; run npm install\n');
    return 1;
  }
  const result = spawnSync(process.execPath, [swc, ...roots, '-d', 'dist', '--quiet'], { cwd: root, stdio: 'inherit' });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** Every file SWC compiles under the roots (as it names them: relative, forward slashes), sorted. */
function listInputs(roots, exclude) {
  const files = new Set();
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      // Declaration files compile to nothing (openapi-typescript rewrites its schema.d.ts on every run).
      else if (COMPILED_EXTENSIONS.has(path.extname(entry.name)) && !rel.endsWith('.d.ts') && !exclude.some((re) => re.test(rel)))
        files.add(rel);
    }
  };
  for (const dir of roots) walk(dir);
  return [...files].sort();
}

/** The .swcrc `exclude` patterns; unreadable means none, which only makes the fingerprint wider. */
function swcExclude() {
  try {
    const patterns = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8')).exclude ?? [];
    return (Array.isArray(patterns) ? patterns : [patterns]).map((pattern) => new RegExp(pattern));
  } catch {
    return [];
  }
}

function fingerprintOf(inputs) {
  const hash = createHash('sha256');
  let newest = 0;
  for (const rel of [...SHARED_INPUTS, ...inputs]) {
    let line = `${rel}\tmissing`;
    try {
      const stat = fs.statSync(path.join(root, rel));
      line = `${rel}\t${stat.mtimeMs}\t${stat.size}`;
      newest = Math.max(newest, stat.mtimeMs);
    } catch {
      // A shared input that does not exist is part of the state too.
    }
    hash.update(`${line}\n`);
  }
  return { digest: hash.digest('hex'), files: inputs.length, newestInputMtime: new Date(newest).toISOString() };
}

function staleReason(stampFile, fingerprint, inputs) {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
  } catch {
    return 'no previous build';
  }
  if (stamp.digest !== fingerprint.digest) {
    if (stamp.files !== fingerprint.files) return `source files ${stamp.files} -> ${fingerprint.files}`;
    return 'sources or build settings changed';
  }
  const missing = inputs.find((rel) => !fs.existsSync(outputOf(rel)));
  return missing ? `${path.relative(root, outputOf(missing))} is missing` : null;
}

/** Where @swc/cli writes a source: dist/<same path> with .ts/.tsx/... mapped to .js (.mts .mjs, .cts .cjs). */
function outputOf(rel) {
  const ext = { '.mts': '.mjs', '.cts': '.cjs' }[path.extname(rel)] ?? '.js';
  return path.join(dist, rel.replace(/\.\w*$/, ext));
}

/** Deletes compiled files (and their maps) under dist/<root> whose source no longer compiles there. */
function pruneOrphans(roots, inputs) {
  const expected = new Set(inputs.map(outputOf));
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const file = path.join(dir, entry.name);
      // dist/apps/web is Vite's bundle (buildWeb), not SWC output.
      if (entry.isDirectory() && file === WEB_OUTPUT) continue;
      if (entry.isDirectory()) walk(file);
      else if (/\.[cm]?js(\.map)?$/.test(entry.name) && !expected.has(file.replace(/\.map$/, ''))) fs.rmSync(file, { force: true });
    }
  };
  for (const dir of roots) walk(path.join(dist, dir));
}

function stampPath(target) {
  return path.join(dist, `.build-${target}.json`);
}

function writeStamp(file, fingerprint) {
  fs.mkdirSync(dist, { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify({ ...fingerprint, builtAt: new Date().toISOString() }, null, 2)}\n`);
  fs.renameSync(temp, file);
}

function within(dir, parent) {
  return dir === parent || dir.startsWith(`${parent}/`);
}

function listDirs(dir) {
  try {
    return fs
      .readdirSync(path.join(root, dir), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

function isDir(rel) {
  try {
    return fs.statSync(path.join(root, rel)).isDirectory();
  } catch {
    return false;
  }
}

process.exitCode = main(process.argv.slice(2));
