// Prints how many bytes each image of docker/ adds on top of its base image (node:22-bookworm-slim;
// the base's own size is not included), without a Docker engine: it reproduces each Dockerfile in
// a temporary directory, one folder per stage, with the repository as the build context.
//
//   npm run images:sizes                       every docker/*.Dockerfile as it is now
//   npm run images:sizes -- scanner            one of them
//   npm run images:sizes -- --ref HEAD         the Dockerfiles and .dockerignore of a commit, same sources
//   npm run images:sizes -- --keep             keep the temporary directory to look inside
//
// How: FROM an image starts an empty folder (FROM an earlier stage starts from a copy of it);
// WORKDIR, ENV and ARG are followed; COPY takes files from the context (filtered by .dockerignore)
// or from an earlier stage, keeping mtimes; RUN runs here with `sh -c` in the stage's WORKDIR, but
// only in the build stages (never in the final one, whose RUN lines are listed as not reproduced) and
// never with an absolute path. Steps that are the same in several Dockerfiles (same instructions on
// the same files) run once, as Docker's layer cache would. The figure is the final stage's folder:
// bytes of its files and symlinks as `du --apparent-size` counts them, and how many there are.
// RUN uses this machine's node and npm, not the image's: close, not byte-exact.
// Node builtins only.
import { execFileSync, spawnSync, type SpawnSyncOptionsWithStringEncoding } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Run compiled, from dist/tools/.
const root = path.resolve(__dirname, '../..');

interface Instruction {
  keyword: string;
  args: string;
  raw: string;
}

interface Stage {
  index: number;
  from: string;
  name: string | null;
  instructions: Instruction[];
  /** The state key after each instruction (Build.keys). */
  keys: string[];
  /** While it runs (Build.run): its folder, working directory and environment. */
  dir?: string;
  workdir: string;
  env: Record<string, string>;
}

interface DockerIgnore {
  excluded: (rel: string) => boolean;
  hasExceptions: boolean;
}

interface ContextEntry {
  rel: string;
  stat: fs.Stats;
}

interface Measured {
  bytes: number;
  files: number;
  symlinks: number;
  dirs: number;
}

// ---------------------------------------------------------------------------------------------
// Dockerfile and .dockerignore

function parseDockerfile(text: string, name: string): Stage[] {
  const lines = text.split(/\r?\n/);
  const instructions: string[] = [];
  let current: string | null = null;
  for (const line of lines) {
    const trimmed = line.trim();
    if (current === null && (trimmed === '' || trimmed.startsWith('#'))) continue;
    if (current !== null && trimmed.startsWith('#')) continue; // comments inside a continuation
    const continued = /\\\s*$/.test(line);
    const body = continued ? line.replace(/\\\s*$/, '') : line;
    current = current === null ? body.trim() : `${current} ${body.trim()}`;
    if (!continued) {
      instructions.push(current);
      current = null;
    }
  }
  if (current !== null) instructions.push(current);

  const stages: Stage[] = [];
  for (const raw of instructions) {
    const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(raw) ?? ['', raw, ''];
    const instruction: Instruction = { keyword: keyword.toUpperCase(), args: rest, raw };
    if (instruction.keyword === 'FROM') {
      const words = rest.split(/\s+/).filter((word) => !word.startsWith('--'));
      const as = words.findIndex((word) => word.toLowerCase() === 'as');
      stages.push({
        index: stages.length,
        from: words[0],
        name: as >= 0 ? words[as + 1] : null,
        instructions: [],
        keys: [],
        workdir: '/',
        env: {},
      });
    } else if (stages.length === 0) {
      if (instruction.keyword !== 'ARG') throw new Error(`${name}: ${keyword} before FROM`);
    } else {
      stages[stages.length - 1].instructions.push(instruction);
    }
  }
  if (stages.length === 0) throw new Error(`${name}: no FROM`);
  return stages;
}

/** Docker's .dockerignore: Go filepath.Match patterns plus **, "!" exceptions, last match wins. */
function parseDockerignore(text: string): DockerIgnore {
  const rules: { exception: boolean; regex: RegExp }[] = [];
  for (let line of text.split(/\r?\n/)) {
    line = line.trim();
    if (line === '' || line.startsWith('#')) continue;
    const exception = line.startsWith('!');
    const pattern = path.posix
      .normalize((exception ? line.slice(1) : line).trim())
      .replace(/^\/+/, '')
      .replace(/\/+$/, '');
    if (pattern === '.' || pattern === '') continue;
    let regex = '';
    for (let i = 0; i < pattern.length; i++) {
      const char = pattern[i];
      if (char === '*' && pattern[i + 1] === '*') {
        const slash = pattern[i + 2] === '/';
        regex += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else if (char === '*') regex += '[^/]*';
      else if (char === '?') regex += '[^/]';
      else if (char === '[') {
        const end = pattern.indexOf(']', i);
        regex += end > i ? pattern.slice(i, end + 1).replace('[!', '[^') : '\\[';
        if (end > i) i = end;
      } else if (char === '\\' && i + 1 < pattern.length) regex += `\\${pattern[++i]}`;
      else regex += char.replace(/[.+^${}()|]/g, '\\$&');
    }
    rules.push({ exception, regex: new RegExp(`^${regex}$`) });
  }
  const hasExceptions = rules.some((rule) => rule.exception);
  /** Whether a context path (relative, forward slashes) is left out: the path or one of its parents matches. */
  const excluded = (rel: string) => {
    const parts = rel.split('/');
    let result = false;
    for (const rule of rules) {
      for (let n = 1; n <= parts.length; n++) {
        if (rule.regex.test(parts.slice(0, n).join('/'))) {
          result = !rule.exception;
          break;
        }
      }
    }
    return result;
  };
  return { excluded, hasExceptions };
}

/** Every path of the context under `rel` (itself included) that .dockerignore keeps. */
function contextEntries(rel: string, ignore: DockerIgnore): ContextEntry[] {
  const out: ContextEntry[] = [];
  const walk = (entryRel: string) => {
    const full = path.join(root, entryRel);
    const stat = fs.lstatSync(full);
    const skip = entryRel !== '' && ignore.excluded(entryRel);
    if (skip && !(stat.isDirectory() && ignore.hasExceptions)) return;
    if (!skip) out.push({ rel: entryRel, stat });
    if (stat.isDirectory()) for (const name of fs.readdirSync(full).sort()) walk(entryRel === '' ? name : `${entryRel}/${name}`);
  };
  walk(rel);
  return out;
}

// ---------------------------------------------------------------------------------------------
// File operations

function copyEntry(src: string, dest: string, stat: fs.Stats, link: boolean): void {
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  if (stat.isDirectory()) {
    fs.mkdirSync(dest, { recursive: true });
  } else {
    fs.rmSync(dest, { force: true, recursive: true });
    if (stat.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), dest);
    else if (link) fs.linkSync(src, dest);
    else fs.copyFileSync(src, dest);
  }
  if (!stat.isSymbolicLink()) fs.utimesSync(dest, stat.atime, stat.mtime);
}

function copyTree(src: string, dest: string, link: boolean): void {
  const stat = fs.lstatSync(src);
  copyEntry(src, dest, stat, link);
  if (stat.isDirectory()) for (const name of fs.readdirSync(src)) copyTree(path.join(src, name), path.join(dest, name), link);
}

function measure(dir: string): Measured {
  const total: Measured = { bytes: 0, files: 0, symlinks: 0, dirs: 0 };
  const walk = (p: string) => {
    const stat = fs.lstatSync(p);
    if (stat.isDirectory()) {
      total.dirs++;
      for (const name of fs.readdirSync(p)) walk(path.join(p, name));
    } else {
      total.bytes += stat.size;
      if (stat.isSymbolicLink()) total.symlinks++;
      else total.files++;
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return total;
}

function hashContext(entries: ContextEntry[]): string {
  const hash = createHash('sha256');
  for (const { rel, stat } of entries) {
    hash.update(`${rel}\0${stat.mode}\0`);
    if (stat.isFile()) hash.update(fs.readFileSync(path.join(root, rel)));
    else if (stat.isSymbolicLink()) hash.update(fs.readlinkSync(path.join(root, rel)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

// ---------------------------------------------------------------------------------------------
// Instructions

/** COPY/ADD arguments: flags, then sources and destination (shell or JSON form). */
function parseCopy(args: string): { flags: Record<string, string | true>; sources: string[]; dest: string } {
  const flags: Record<string, string | true> = {};
  let rest = args.trim();
  for (let match; (match = /^--([\w-]+)(?:=(\S*))?\s+/.exec(rest)); rest = rest.slice(match[0].length)) flags[match[1]] = match[2] ?? true;
  const words = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/);
  return { flags, sources: words.slice(0, -1), dest: words[words.length - 1] };
}

function parseEnv(args: string): Record<string, string> {
  const vars: Record<string, string> = {};
  if (!/^[\w.-]+=/.test(args)) {
    const [, key, value] = /^(\S+)\s+(.*)$/.exec(args) ?? ['', args, ''];
    vars[key] = value;
    return vars;
  }
  for (const match of args.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g)) {
    vars[match[1]] = match[2].replace(/^(["'])([\s\S]*)\1$/, '$2').replace(/\\(.)/g, '$1');
  }
  return vars;
}

/** A COPY source as a context path: relative, forward slashes, '' for the context itself. */
function contextRel(src: string): string {
  const rel = path.posix.normalize(src).replace(/^\/+/, '').replace(/\/+$/, '');
  return rel === '.' ? '' : rel;
}

function resolveIn(stage: Stage, target: string): string {
  return path.posix.resolve(stage.workdir, target);
}

const METADATA = new Set(['USER', 'EXPOSE', 'VOLUME', 'CMD', 'ENTRYPOINT', 'HEALTHCHECK', 'LABEL', 'STOPSIGNAL', 'SHELL', 'MAINTAINER']);

interface ImageRun {
  total: Measured;
  copies: { raw: string; bytes: number }[];
  skipped: string[];
  dir: string;
}

class Build {
  /** State key -> snapshot folder. */
  private readonly cache = new Map<string, string>();
  private counter = 0;

  constructor(
    private readonly tempDir: string,
    private readonly ignore: DockerIgnore,
  ) {}

  newDir(label: string): string {
    const dir = path.join(this.tempDir, `${String(++this.counter).padStart(3, '0')}-${label.replace(/[^\w.-]+/g, '_')}`);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** The state key of every instruction of every stage (Docker's cache key, roughly), computed up front. */
  keys(stages: Stage[]): void {
    const finals = new Map<number, string>();
    const contextHashes = new Map<string, string>();
    for (const stage of stages) {
      const parent = stages.find((other) => other.name && other.name === stage.from && other.index < stage.index);
      let key = parent ? (finals.get(parent.index) ?? '') : hash(`FROM ${stage.from}`);
      stage.keys = [];
      for (const instruction of stage.instructions) {
        let extra = '';
        if (instruction.keyword === 'COPY' || instruction.keyword === 'ADD') {
          const { flags, sources } = parseCopy(instruction.args);
          if (flags.from) {
            const source = stages.find((other) => other.name === flags.from || String(other.index) === flags.from);
            extra = source ? (finals.get(source.index) ?? '') : `image ${String(flags.from)}`;
          } else {
            extra = sources
              .map((src) => {
                const rel = contextRel(src);
                if (!contextHashes.has(rel)) contextHashes.set(rel, hashContext(contextEntries(rel, this.ignore)));
                return contextHashes.get(rel) ?? '';
              })
              .join(',');
          }
        }
        key = hash(`${key}\n${instruction.raw}\n${extra}`);
        stage.keys.push(key);
      }
      finals.set(stage.index, key);
    }
  }

  run(name: string, stages: Stage[], keyUses: Map<string, number>): ImageRun {
    const final = stages[stages.length - 1];
    const report: Pick<ImageRun, 'copies' | 'skipped'> = { copies: [], skipped: [] };
    for (const stage of stages) {
      const isFinal = stage === final;
      const parent = stages.find((other) => other.name && other.name === stage.from && other.index < stage.index);
      const dir = this.newDir(`${name}-${stage.name ?? stage.index}`);
      stage.dir = dir;
      stage.workdir = parent ? parent.workdir : '/';
      stage.env = parent ? { ...parent.env } : {};
      if (parent?.dir) copyTree(parent.dir, dir, false);
      let restoredUpTo = -1;
      // Start from the latest cached state of this stage, if any (the steps before it are then done).
      for (let i = stage.instructions.length - 1; i >= 0 && !isFinal; i--) {
        const cached = this.cache.get(stage.keys[i]);
        if (cached) {
          fs.rmSync(dir, { recursive: true, force: true });
          copyTree(cached, dir, false);
          restoredUpTo = i;
          break;
        }
      }
      stage.instructions.forEach((instruction, i) => {
        const { keyword, args } = instruction;
        if (keyword === 'WORKDIR') stage.workdir = resolveIn(stage, args.trim());
        else if (keyword === 'ENV') Object.assign(stage.env, parseEnv(args));
        else if (keyword === 'ARG') {
          const [, key, value] = /^([\w.-]+)(?:=(.*))?$/.exec(args.trim()) ?? [];
          if (key !== undefined && value !== undefined) stage.env[key] = value.replace(/^(["'])(.*)\1$/, '$2');
        }
        if (i <= restoredUpTo) return;
        if (keyword === 'WORKDIR') fs.mkdirSync(path.join(dir, stage.workdir), { recursive: true });
        else if (keyword === 'COPY' || keyword === 'ADD') {
          const copied = this.copy(stages, stage, instruction, isFinal);
          if (isFinal) report.copies.push({ raw: instruction.raw, ...copied });
        } else if (keyword === 'RUN') {
          if (isFinal) report.skipped.push(instruction.raw);
          else this.runCommand(stage, args);
        } else if (!METADATA.has(keyword) && keyword !== 'ENV' && keyword !== 'ARG') {
          throw new Error(`${name}: ${keyword} is not reproduced by tools/image-sizes.ts`);
        }
        // Keep the state after the last step several Dockerfiles share, for the next one to start from.
        const uses = keyUses.get(stage.keys[i]) ?? 0;
        const nextUses = i + 1 < stage.keys.length ? (keyUses.get(stage.keys[i + 1]) ?? 0) : 0;
        if (!isFinal && uses > 1 && nextUses < uses && !this.cache.has(stage.keys[i])) {
          const snapshot = this.newDir('cache');
          copyTree(dir, snapshot, false);
          this.cache.set(stage.keys[i], snapshot);
        }
      });
    }
    const finalDir = final.dir ?? '';
    return { total: measure(finalDir), ...report, dir: finalDir };
  }

  copy(stages: Stage[], stage: Stage, instruction: Instruction, isFinal: boolean): { bytes: number } {
    const stageDir = stage.dir ?? '';
    const { flags, sources, dest } = parseCopy(instruction.args);
    for (const flag of Object.keys(flags)) {
      if (!['from', 'chown', 'chmod', 'link'].includes(flag)) throw new Error(`COPY --${flag} is not reproduced: ${instruction.raw}`);
    }
    if (instruction.keyword === 'ADD' && sources.some((src) => /^[a-z]+:\/\//.test(src) || /\.(tar|tgz|gz|bz2|xz)$/.test(src))) {
      throw new Error(`ADD of a URL or an archive is not reproduced: ${instruction.raw}`);
    }
    if (sources.some((src) => /[*?[]/.test(src))) throw new Error(`COPY wildcards are not reproduced: ${instruction.raw}`);
    const destPath = resolveIn(stage, dest);
    const intoDir = sources.length > 1 || dest.endsWith('/') || dest === '.' || fs.existsSync(path.join(stageDir, destPath, '.'));
    let added = 0;
    for (const src of sources) {
      if (flags.from) {
        const from = stages.find((other) => other.name === flags.from || String(other.index) === flags.from);
        if (!from?.dir) throw new Error(`COPY --from=${String(flags.from)}: not an earlier stage of this Dockerfile`);
        const srcPath = path.join(from.dir, path.posix.resolve(from.workdir, src));
        const stat = fs.lstatSync(srcPath);
        const target = stat.isDirectory() || !intoDir ? destPath : path.posix.join(destPath, path.basename(srcPath));
        // The final stage runs nothing, so hard links are safe there and save the copy.
        copyTree(srcPath, path.join(stageDir, target), isFinal);
        added += measure(srcPath).bytes;
      } else {
        const rel = contextRel(src);
        const entries = contextEntries(rel, this.ignore);
        if (entries.length === 0) throw new Error(`COPY ${src}: not in the build context (missing or in .dockerignore)`);
        const top = entries[0];
        for (const entry of entries) {
          const inside = rel === '' ? entry.rel : path.posix.relative(rel, entry.rel);
          const target = top.stat.isDirectory()
            ? path.posix.join(destPath, inside)
            : intoDir
              ? path.posix.join(destPath, path.posix.basename(rel))
              : destPath;
          copyEntry(path.join(root, entry.rel), path.join(stageDir, target), entry.stat, false);
          if (!entry.stat.isDirectory()) added += entry.stat.size;
        }
      }
    }
    return { bytes: added };
  }

  runCommand(stage: Stage, args: string): void {
    const exec = args.trim().startsWith('[') ? (JSON.parse(args) as string[]) : null;
    const text = exec ? exec.join(' ') : args;
    const absolute = /(?:^|[\s=<>|;&'"(:])(\/(?!dev\/null\b)[^\s;&|'")]*)/.exec(text);
    if (absolute) throw new Error(`RUN uses the absolute path ${absolute[1]}, which cannot be reproduced here: ${text}`);
    const cwd = path.join(stage.dir ?? '', stage.workdir);
    fs.mkdirSync(cwd, { recursive: true });
    process.stderr.write(`    RUN ${text}\n`);
    const options: SpawnSyncOptionsWithStringEncoding = {
      cwd,
      env: { ...process.env, ...stage.env },
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    };
    const result = exec ? spawnSync(exec[0], exec.slice(1), options) : spawnSync('sh', ['-c', args], options);
    if (result.status !== 0)
      throw new Error(`RUN failed (${result.status ?? result.signal ?? 'no status'}): ${text}\n${(result.stderr ?? '').slice(-4000)}`);
  }
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

// ---------------------------------------------------------------------------------------------

function readAt(ref: string | null, rel: string): string {
  if (!ref) return fs.readFileSync(path.join(root, rel), 'utf8');
  return execFileSync('git', ['show', `${ref}:${rel}`], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function dockerfilesAt(ref: string | null): string[] {
  const names = ref
    ? execFileSync('git', ['ls-tree', '--name-only', ref, 'docker/'], { cwd: root, encoding: 'utf8' }).split('\n')
    : fs.readdirSync(path.join(root, 'docker')).map((name) => `docker/${name}`);
  return names.filter((rel) => rel.endsWith('.Dockerfile')).sort();
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function main(argv: string[]): number {
  const refIndex = argv.indexOf('--ref');
  const ref = refIndex >= 0 ? argv[refIndex + 1] : null;
  const keep = argv.includes('--keep');
  const wanted = argv.filter((arg, i) => !arg.startsWith('--') && !(refIndex >= 0 && i === refIndex + 1));
  const files = dockerfilesAt(ref).filter((rel) => wanted.length === 0 || wanted.includes(path.basename(rel, '.Dockerfile')));
  if (files.length === 0) {
    process.stderr.write('usage: npm run images:sizes -- [--ref <commit>] [--keep] [image...]  (images: docker/<image>.Dockerfile)\n');
    return 2;
  }
  let ignoreText = '';
  try {
    ignoreText = readAt(ref, '.dockerignore');
  } catch {
    // no .dockerignore: the whole context
  }
  const ignore = parseDockerignore(ignoreText);
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'certkeeper-image-sizes-'));
  const build = new Build(tempDir, ignore);
  const images = files.map((rel) => ({ rel, name: path.basename(rel, '.Dockerfile'), stages: parseDockerfile(readAt(ref, rel), rel) }));
  const keyUses = new Map<string, number>();
  for (const image of images) {
    build.keys(image.stages);
    for (const stage of image.stages) for (const key of stage.keys) keyUses.set(key, (keyUses.get(key) ?? 0) + 1);
  }

  const results: ({ image: (typeof images)[number] } & ImageRun)[] = [];
  try {
    for (const image of images) {
      process.stderr.write(`${image.rel}${ref ? ` (at ${ref})` : ''}\n`);
      const started = Date.now();
      results.push({ image, ...build.run(image.name, image.stages, keyUses) });
      process.stderr.write(`    done in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    }
  } finally {
    if (!keep) fs.rmSync(tempDir, { recursive: true, force: true });
  }

  const lines = [
    `Bytes each image adds on top of its base image (${[...new Set(images.map((image) => image.stages[image.stages.length - 1].from))].join(', ')}; the base's own size is not included)`,
    `Dockerfiles and .dockerignore: ${ref ? `at ${ref}` : 'working tree'}; build context: the working tree; RUN with node ${process.version} here`,
  ];
  for (const { image, total, copies, skipped, dir } of results) {
    lines.push('');
    lines.push(
      `${image.name.padEnd(8)} ${image.rel}: ${total.bytes.toLocaleString('en-US')} bytes (${mib(total.bytes)}), ${total.files.toLocaleString('en-US')} files, ${total.symlinks} symlinks`,
    );
    for (const copy of copies) lines.push(`           ${mib(copy.bytes).padStart(10)}  ${copy.raw}`);
    for (const raw of skipped) lines.push(`           not reproduced (runs in the image, not counted): ${raw}`);
    if (keep) lines.push(`           final stage kept in ${dir}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`tools/image-sizes.ts: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
