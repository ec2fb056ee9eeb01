// Compiles what one target needs into dist/ with SWC, and skips SWC when dist/ is already current
// for that target (decision 0002):
//
//   node tools/build.js scanner   apps/scanner/src + libs/*/src                 (npm run scanner)
//   node tools/build.js api       apps/api/src + apps/scanner/src + libs/*/src  (npm start: the API
//                                 runs the built agent as its embedded scanner)
//   node tools/build.js tools     tools                                         (tools/*.ts scripts)
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
// Node builtins only: tools/build.js (its launcher) runs it straight from this source.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');
const LAUNCHER = 'tools/build.js';
const SHARED_INPUTS = ['.swcrc', 'tsconfig.base.json', 'package-lock.json', path.relative(root, __filename), LAUNCHER];
// What @swc/cli compiles (its DEFAULT_EXTENSIONS); dot files and dot folders are skipped, as its glob does.
const COMPILED_EXTENSIONS = new Set(['.js', '.jsx', '.es6', '.es', '.mjs', '.ts', '.tsx', '.cts', '.mts']);

type Target = (typeof TARGETS)[number];
const TARGETS = ['scanner', 'api', 'tools', 'all'] as const;

interface Fingerprint {
  digest: string;
  files: number;
  newestInputMtime: string | null;
}

/** Source roots of each target, relative to the repository root. libs/* are discovered, not listed. */
function targetRoots(target: string): string[] | null {
  const libs = listDirs('libs')
    .map((name) => `libs/${name}/src`)
    .filter((dir) => isDir(dir));
  switch (target) {
    case 'scanner':
      return ['apps/scanner/src', ...libs];
    case 'api':
      return ['apps/api/src', 'apps/scanner/src', ...libs];
    case 'tools':
      return ['tools'];
    case 'all':
      return ['apps', 'libs', 'tools'].filter((dir) => isDir(dir));
    default:
      return null;
  }
}
/** Builds the target named in argv; installCheckMs is how long the launcher's install check took. */
export function main(argv: string[], installCheckMs: number): number {
  const force = argv.includes('--force');
  const target = argv.find((arg) => !arg.startsWith('-'));
  const roots = target === undefined ? null : targetRoots(target);
  if (!target || !roots) {
    process.stderr.write(`usage: node tools/build.js [--force] <${TARGETS.join('|')}>\n`);
    return 2;
  }
  const phases = new Phases(target);
  phases.fields.installCheck = installCheckMs;
  try {
    const webStatus = target === 'scanner' ? 0 : phases.time('web', () => buildWeb(force));
    if (webStatus !== 0) return webStatus;

    return phases.time('build', () => buildTarget(target as Target, roots, force));
  } finally {
    phases.report();
  }
}

/**
 * How long each step took, in ms. With LOG_LEVEL=debug (as for the API) they are printed as one
 * line of the API's JSON log format, so `npm start` shows every start-up phase, these included.
 */
class Phases {
  readonly fields: Record<string, string | number>;

  constructor(target: string) {
    this.fields = { target };
  }

  time<T>(name: string, step: () => T): T {
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
function buildTarget(target: Target, roots: string[], force: boolean): number {
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
  const covered = TARGETS.filter(
    (other) => other !== target && (targetRoots(other) ?? []).every((dir) => roots.some((r) => within(dir, r))),
  );
  const coveredStamps = covered.map((other) => {
    const otherInputs = listInputs(targetRoots(other) ?? [], exclude);
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
  'libs/api-client/src/schema.d.ts',
  'libs/domain/src/roles.ts',
  'libs/domain/src/lifetime-thresholds.ts',
  'tools/build-web.mjs',
  'package-lock.json',
  path.relative(root, __filename),
  LAUNCHER,
];

/** Bundles apps/web into dist/apps/web unless the stamp says the bundle matches its inputs. */
function buildWeb(force: boolean): number {
  if (!isDir(WEB_SOURCES)) return 0;
  const inputs: string[] = [];
  const walk = (dir: string) => {
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
    let stamp: Partial<Fingerprint> | null = null;
    try {
      stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8')) as Partial<Fingerprint>;
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

function runSwc(roots: string[]): number {
  let swc: string;
  try {
    const cliDir = path.dirname(require.resolve('@swc/cli/package.json', { paths: [root] }));
    const manifest = JSON.parse(fs.readFileSync(path.join(cliDir, 'package.json'), 'utf8')) as { bin: { swc: string } };
    swc = path.join(cliDir, manifest.bin.swc);
  } catch {
    process.stderr.write('tools/build.js: @swc/cli is not installed; run npm install\n');
    return 1;
  }
  const result = spawnSync(process.execPath, [swc, ...roots, '-d', 'dist', '--quiet'], { cwd: root, stdio: 'inherit' });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** Every file SWC compiles under the roots (as it names them: relative, forward slashes), sorted. */
function listInputs(roots: string[], exclude: RegExp[]): string[] {
  const files = new Set<string>();
  const walk = (dir: string) => {
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
function swcExclude(): RegExp[] {
  try {
    const swcrc = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8')) as { exclude?: string | string[] };
    const patterns = swcrc.exclude ?? [];
    return (Array.isArray(patterns) ? patterns : [patterns]).map((pattern) => new RegExp(pattern));
  } catch {
    return [];
  }
}

function fingerprintOf(inputs: string[]): Fingerprint {
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

function staleReason(stampFile: string, fingerprint: Fingerprint, inputs: string[]): string | null {
  let stamp: Partial<Fingerprint>;
  try {
    stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8')) as Partial<Fingerprint>;
  } catch {
    return 'no previous build';
  }
  if (stamp.digest !== fingerprint.digest) {
    if (stamp.files !== fingerprint.files) return `source files ${stamp.files ?? '?'} -> ${fingerprint.files}`;
    return 'sources or build settings changed';
  }
  const missing = inputs.find((rel) => !fs.existsSync(outputOf(rel)));
  return missing ? `${path.relative(root, outputOf(missing))} is missing` : null;
}

/** Where @swc/cli writes a source: dist/<same path> with .ts/.tsx/... mapped to .js (.mts .mjs, .cts .cjs). */
function outputOf(rel: string): string {
  const ext = ({ '.mts': '.mjs', '.cts': '.cjs' } as Record<string, string>)[path.extname(rel)] ?? '.js';
  return path.join(dist, rel.replace(/\.\w*$/, ext));
}

/** Deletes compiled files (and their maps) under dist/<root> whose source no longer compiles there. */
function pruneOrphans(roots: string[], inputs: string[]): void {
  const expected = new Set(inputs.map(outputOf));
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
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

function stampPath(target: Target | 'web'): string {
  return path.join(dist, `.build-${target}.json`);
}

function writeStamp(file: string, fingerprint: Fingerprint): void {
  fs.mkdirSync(dist, { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify({ ...fingerprint, builtAt: new Date().toISOString() }, null, 2)}\n`);
  fs.renameSync(temp, file);
}

function within(dir: string, parent: string): boolean {
  return dir === parent || dir.startsWith(`${parent}/`);
}

function listDirs(dir: string): string[] {
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

function isDir(rel: string): boolean {
  try {
    return fs.statSync(path.join(root, rel)).isDirectory();
  } catch {
    return false;
  }
}
