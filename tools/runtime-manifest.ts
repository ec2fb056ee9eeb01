// Prints the package.json of a deployable made of compiled entry points: the npm packages their
// code requires at run time, at the versions the root package.json pins, and nothing else.
//
//   node tools/build.js tools && node dist/tools/runtime-manifest.js dist/apps/scanner/src/main.js > scanner/package.json
//
// It follows every `require("...")` of the compiled first-party code (relative paths, and the
// libs SWC rewrote @certkeeper/* to) from the entry points; a bare name is a package (builtins
// aside). `npm install --omit=dev` next to the printed manifest and the root package-lock.json then
// installs those packages and their own dependencies at the locked versions (docker/scanner.Dockerfile).
// Fails when first-party code requires a package the root package.json does not list under
// "dependencies" (a devDependency would be missing in production), an unresolvable relative path,
// an unrewritten @certkeeper/* path, or a require() whose argument is not a string literal.
// Node builtins only.
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

// Run compiled, from dist/tools/.
const root = path.resolve(__dirname, '../..');
const BUILTINS = new Set(builtinModules);
// require( not preceded by a property access or an identifier character (reader.require(...) is not
// one), with one argument; a method named require (`require(name, parse) {`) has several or a body.
const REQUIRE_CALL = /(?<![.\w$])require\s*\(\s*([^),]+?)\s*\)(?!\s*\{)/g;

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function resolveFile(base: string): string | null {
  for (const candidate of [base, `${base}.js`, `${base}.cjs`, `${base}.json`, path.join(base, 'index.js')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Walks the first-party require graph; returns { files, packages: Map<name, first requiring file> }. */
function trace(entries: string[]): { files: string[]; packages: Map<string, string>; problems: string[] } {
  const problems: string[] = [];
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const queue = entries.map((entry) => path.resolve(entry));
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith('.js') && !file.endsWith('.cjs')) continue;
    const source = fs.readFileSync(file, 'utf8');
    for (const match of source.matchAll(REQUIRE_CALL)) {
      const literal = /^(["'])([^"']+)\1$/.exec(match[1]);
      const where = path.relative(root, file);
      if (!literal) {
        problems.push(`${where}: require(${match[1]}) is not a string literal`);
        continue;
      }
      const specifier = literal[2];
      if (specifier.startsWith('.') || specifier.startsWith('/')) {
        const target = resolveFile(path.resolve(path.dirname(file), specifier));
        if (target) queue.push(target);
        else problems.push(`${where}: cannot resolve ${specifier}`);
      } else if (specifier.startsWith('node:') || BUILTINS.has(specifier) || BUILTINS.has(specifier.split('/')[0])) {
        continue;
      } else if (specifier.startsWith('@certkeeper/')) {
        problems.push(`${where}: ${specifier} was not rewritten to a relative path (.swcrc jsc.paths)`);
      } else if (!packages.has(packageName(specifier))) {
        packages.set(packageName(specifier), where);
      }
    }
  }
  return { files: [...seen], packages, problems };
}

interface RootManifest {
  name: string;
  version: string;
  license: string;
  dependencies?: Record<string, string>;
}

function main(argv: string[]): number {
  const entries = argv.filter((arg) => !arg.startsWith('-'));
  if (entries.length === 0) {
    process.stderr.write('usage: node dist/tools/runtime-manifest.js <compiled entry.js>... > package.json\n');
    return 2;
  }
  const missing = entries.filter((entry) => !fs.existsSync(entry));
  if (missing.length > 0) {
    process.stderr.write(`tools/runtime-manifest.ts: not built: ${missing.join(', ')}\n`);
    return 1;
  }
  const rootManifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as RootManifest;
  const { files, packages, problems } = trace(entries);
  const dependencies: Record<string, string> = {};
  for (const [name, where] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
    const version = rootManifest.dependencies?.[name];
    if (version) dependencies[name] = version;
    else problems.push(`${where}: requires ${name}, which package.json does not list under "dependencies"`);
  }
  if (problems.length > 0) {
    process.stderr.write(`tools/runtime-manifest.ts:\n  ${problems.join('\n  ')}\n`);
    return 1;
  }
  process.stderr.write(`${files.length} first-party files require ${Object.keys(dependencies).join(', ') || 'no packages'}\n`);
  const manifest = {
    name: `${rootManifest.name}-runtime`,
    version: rootManifest.version,
    private: true,
    license: rootManifest.license,
    dependencies,
  };
  process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
