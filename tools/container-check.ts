// Builds both images of docker/ with podman and runs them the way an operator does (npm run
// images:check; CI runs it from .ci/run):
//
//  1. the stand-in for node:22-bookworm-slim (shared/containers/make-base.sh, next to the
//     repository) is built when podman does not have it, into a scratch folder (WORK);
//  2. both images build with `--format docker`, so their HEALTHCHECK survives; the build stage
//     does not install again after `COPY . .`, and the API image holds no typescript
//     or ts-node;
//  3. on a /data owned by root the API stops with the sentence naming the cause; on a named data
//     volume it answers its health check and the first administrator signs in with the password
//     from /data; a scanner created over the API runs as its own container with host networking
//     (the TLS server is on the host's loopback), answers its health check, and after "scan now"
//     the endpoint shows the server's certificate;
//  4. both containers stop within 10 s with exit code 0; a new API container on the same volume
//     signs the administrator in with the same password and still has the endpoint.
//
// Without podman it fails under CI=true and is skipped otherwise; where podman cannot run
// containers at all (not root: the stand-in base needs debootstrap, or the runtime refuses) it is
// skipped with the reason. Environment: CERTKEEPER_CONTAINERS_DIR (the stand-in's folder; default
// shared/containers in an ancestor of the repository), IMAGES_CHECK_WORK (scratch folder, kept
// between runs; default a folder in the system's temp dir). Layers are cached between runs.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { startNodeTlsServer, unusedPort } from '@certkeeper/net/testing';

const root = resolve(__dirname, '../..');
const BASE_IMAGE = 'docker.io/library/node:22-bookworm-slim';
const IMAGES = { api: 'localhost/certkeeper-api:check', scanner: 'localhost/certkeeper-scanner:check' };
const API_CONTAINER = 'certkeeper-check-api';
const SCANNER_CONTAINER = 'certkeeper-check-scanner';
const DATA_VOLUME = 'certkeeper-check-data';
const STOP_LIMIT_MS = 10_000;

class Skip extends Error {}

interface Run {
  status: number;
  /** Standard output, trimmed: what the command answers (a password, an inspected field). */
  output: string;
  errors: string;
}

function podman(args: string[], options: { allowFailure?: boolean } = {}): Run {
  const result = spawnSync('podman', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  const run = { status: result.status ?? 1, output: result.stdout.trim(), errors: result.stderr.trim() };
  if (run.status !== 0 && !options.allowFailure)
    throw new Error(`podman ${args.join(' ')} failed (${run.status}):\n${run.output}\n${run.errors}`);
  return run;
}

/** Runs a long command with its output in a log file; on failure the error shows the log's end. */
function runLogged(command: string, args: string[], logFile: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((done, fail) => {
    const log = createWriteStream(logFile);
    let output = '';
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        log.write(chunk);
      });
    }
    child.once('error', fail);
    child.once('exit', (code) => {
      log.end();
      if (code === 0) done(output);
      else
        fail(
          new Error(
            `${command} ${args.join(' ')} exited with ${code}; its last lines (all in ${logFile}):\n${output.split('\n').slice(-30).join('\n')}`,
          ),
        );
    });
  });
}

/** The stand-in base's folder: shared/containers next to the repository or in an ancestor of it. */
function standInFolder(): string {
  const configured = process.env.CERTKEEPER_CONTAINERS_DIR;
  if (configured) return resolve(configured);
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'containers');
    if (existsSync(join(candidate, 'make-base.sh'))) return candidate;
    if (dirname(dir) === dir) break;
  }
  throw new Error('shared/containers/make-base.sh (the stand-in base image) is not next to the repository; set CERTKEEPER_CONTAINERS_DIR');
}

function step(message: string): void {
  process.stdout.write(`${message}\n`);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

async function until<T>(what: string, limitMs: number, probe: () => Promise<T | null> | T | null): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${seconds(limitMs)}`);
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

async function api<T>(
  baseUrl: string,
  path: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${baseUrl}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return { status: response.status, body: (text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T };
}

function expectStatus(what: string, actual: number, expected: number, body: unknown): void {
  if (actual !== expected)
    throw new Error(`${what}: ${actual}, expected ${expected}: ${typeof body === 'string' ? body : JSON.stringify(body)}`);
}

async function prepareBase(work: string): Promise<void> {
  const conf = join(work, 'containers.conf');
  const haveBase = podman(['image', 'exists', BASE_IMAGE], { allowFailure: true }).status === 0;
  if (haveBase && existsSync(conf) && existsSync(join(work, 'buildtrust', 'npmrc'))) return;
  step(`building the stand-in base image (about a minute; log ${join(work, 'base.log')})`);
  await runLogged('bash', [join(standInFolder(), 'make-base.sh')], join(work, 'base.log'), { ...process.env, WORK: work });
}

async function buildImage(name: keyof typeof IMAGES, work: string): Promise<void> {
  const started = Date.now();
  const output = await runLogged(
    'podman',
    [
      'build',
      '--pull=never',
      '--format',
      'docker',
      '-v',
      `${join(work, 'buildtrust')}:/usr/local/etc:ro`,
      '-f',
      `docker/${name}.Dockerfile`,
      '-t',
      IMAGES[name],
      '.',
    ],
    join(work, `build-${name}.log`),
  );
  // ensure-installed's line may show in the install step (when the lockfile changed), never
  // after `COPY . .`: tools/build.js must find the install current there.
  const afterCopy = output.slice(output.indexOf('COPY . .'));
  if (afterCopy.includes('Installing dependencies (npm install)'))
    throw new Error(`docker/${name}.Dockerfile installs the dependencies again after COPY . . (log ${join(work, `build-${name}.log`)})`);
  const healthcheck = podman(['image', 'inspect', '--format', '{{json .Config.Healthcheck}}', IMAGES[name]]).output;
  if (!/"Test":\["CMD/.test(healthcheck)) throw new Error(`${IMAGES[name]} has no HEALTHCHECK: ${healthcheck}`);
  step(`built ${IMAGES[name]} in ${seconds(Date.now() - started)}, HEALTHCHECK kept`);
}

/**
 * `podman run --detach` with the image's health check kept but not timed: without systemd podman
 * cannot schedule it, and the check runs it itself (`podman healthcheck run`).
 */
function runDetached(args: string[]): void {
  podman(['run', '--detach', '--health-interval', 'disable', ...args]);
}

/** A container's last log lines, both streams (the API logs JSON to standard output). */
function containerLogs(container: string): string {
  const logs = podman(['logs', '--tail', '30', container], { allowFailure: true });
  return `${logs.output}\n${logs.errors}`.trim();
}

function removeLeftovers(): void {
  podman(['rm', '--force', '--ignore', SCANNER_CONTAINER, API_CONTAINER], { allowFailure: true });
  podman(['volume', 'rm', '--force', DATA_VOLUME], { allowFailure: true });
}

/** Starts the API container on the data volume and waits for its image's health check to pass. */
async function startApi(port: number): Promise<string> {
  const started = Date.now();
  runDetached(['--name', API_CONTAINER, '--volume', `${DATA_VOLUME}:/data`, '--publish', `127.0.0.1:${port}:8080`, IMAGES.api]);
  await until('the API container is healthy (podman healthcheck run)', 60_000, () => {
    const state = podman(['inspect', '--format', '{{.State.Status}}', API_CONTAINER]).output;
    if (state !== 'running') throw new Error(`the API container is ${state}:\n${containerLogs(API_CONTAINER)}`);
    return podman(['healthcheck', 'run', API_CONTAINER], { allowFailure: true }).status === 0 ? true : null;
  });
  step(`API healthy in ${seconds(Date.now() - started)}`);
  return `http://127.0.0.1:${port}`;
}

function stop(container: string): void {
  const started = Date.now();
  podman(['stop', '--time', String(STOP_LIMIT_MS / 1000), container]);
  const took = Date.now() - started;
  const exitCode = podman(['inspect', '--format', '{{.State.ExitCode}}', container]).output;
  if (took >= STOP_LIMIT_MS || exitCode !== '0')
    throw new Error(
      `${container} stopped in ${seconds(took)} with exit code ${exitCode}, expected under 10 s and 0:\n${containerLogs(container)}`,
    );
  step(`${container} stopped in ${seconds(took)}, exit code 0`);
}

async function signIn(baseUrl: string, password: string): Promise<string> {
  const login = await api<{ token: string }>(baseUrl, '/auth/login', { method: 'POST', body: { email: 'admin@localhost', password } });
  expectStatus('sign-in with the password from /data/initial-admin-password', login.status, 200, login.body);
  return login.body.token;
}

interface EndpointView {
  currentCertificates?: { fingerprint: string }[];
}

function showsCertificate(endpoint: EndpointView, fingerprint: string): boolean {
  return (endpoint.currentCertificates ?? []).some((link) => link.fingerprint === fingerprint);
}

async function check(): Promise<void> {
  if (spawnSync('podman', ['--version']).error) {
    if (process.env.CI === 'true')
      throw new Error('podman is not installed (CI=true: the images must be checked; .ci/run installs it as root)');
    throw new Skip('podman is not installed');
  }
  if (process.getuid?.() !== 0) throw new Skip('not root: the stand-in base image needs debootstrap and podman as root here');

  const work = resolve(process.env.IMAGES_CHECK_WORK ?? join(tmpdir(), 'certkeeper-images-check'));
  await mkdir(work, { recursive: true });
  process.env.CONTAINERS_CONF = join(work, 'containers.conf');
  await prepareBase(work);
  const canRun = podman(['run', '--rm', '--network=none', BASE_IMAGE, 'true'], { allowFailure: true });
  if (canRun.status !== 0) throw new Skip(`podman cannot run a container here: ${canRun.errors}`);

  await buildImage('api', work);
  await buildImage('scanner', work);
  const devPackages = podman([
    'run',
    '--rm',
    IMAGES.api,
    'node',
    '-e',
    "for (const p of ['typescript', 'ts-node']) { try { require.resolve(p); console.log(p) } catch {} }",
  ]).output;
  if (devPackages !== '') throw new Error(`the API image carries ${devPackages.split('\n').join(', ')}, which it never loads`);

  // A bind mount owned by root, as `docker run -v /srv/certkeeper:/data` gives before a chown.
  const rootOwned = await mkdtemp(join(work, 'root-owned-data-'));
  await chmod(rootOwned, 0o755);
  const refused = podman(['run', '--rm', '--volume', `${rootOwned}:/data`, IMAGES.api], { allowFailure: true });
  await rm(rootOwned, { recursive: true, force: true });
  const refusal = `${refused.output}\n${refused.errors}`;
  if (refused.status === 0 || !refusal.includes('DATA_DIR /data is not writable by uid 1000 (node)'))
    throw new Error(`the API image on a /data owned by root should stop naming the cause (status ${refused.status}):\n${refusal}`);
  step('the API image on a /data owned by root stops with: DATA_DIR /data is not writable by uid 1000 (node)...');

  const leaf = await mintCertificate({ subject: 'CN=images-check.local', sans: ['images-check.local', '127.0.0.1'] });
  const fingerprint = createHash('sha256').update(leaf.der).digest('hex');
  const tls = await startNodeTlsServer({ cert: leaf.pem, key: await privateKeyPem(leaf.keys.privateKey) });
  removeLeftovers();
  try {
    const port = await unusedPort();
    const baseUrl = await startApi(port);
    const password = podman(['exec', API_CONTAINER, 'cat', '/data/initial-admin-password']).output;
    const token = await signIn(baseUrl, password);

    const scanner = await api<{ id: string; token: string }>(baseUrl, '/scanners', {
      method: 'POST',
      token,
      body: { name: 'images-check' },
    });
    expectStatus('POST /scanners', scanner.status, 201, scanner.body);
    const metricsPort = await unusedPort();
    runDetached([
      '--name',
      SCANNER_CONTAINER,
      '--network',
      'host',
      '--env',
      `SCANNER_API_URL=${baseUrl}`,
      '--env',
      `SCANNER_TOKEN=${scanner.body.token}`,
      '--env',
      `SCANNER_METRICS_PORT=${metricsPort}`,
      IMAGES.scanner,
    ]);
    await until('the scanner container is healthy (podman healthcheck run)', 30_000, () =>
      podman(['healthcheck', 'run', SCANNER_CONTAINER], { allowFailure: true }).status === 0 ? true : null,
    );
    step('scanner container healthy');

    const endpoint = await api<{ id: string }>(baseUrl, '/endpoints', {
      method: 'POST',
      token,
      body: { type: 'host', name: 'images-check', dnsName: '127.0.0.1', port: tls.port, scannerId: scanner.body.id },
    });
    expectStatus('POST /endpoints', endpoint.status, 201, endpoint.body);
    const scanRequested = Date.now();
    const scanNow = await api(baseUrl, `/endpoints/${endpoint.body.id}/scan`, { method: 'POST', token });
    expectStatus('POST /endpoints/{id}/scan', scanNow.status, 202, scanNow.body);
    await until("the endpoint shows the TLS server's certificate", 30_000, async () => {
      const view = await api<EndpointView>(baseUrl, `/endpoints/${endpoint.body.id}`, { token });
      return showsCertificate(view.body, fingerprint) ? true : null;
    });
    step(`the scanner container scanned the host's TLS server ${seconds(Date.now() - scanRequested)} after "scan now"`);

    stop(SCANNER_CONTAINER);
    stop(API_CONTAINER);
    podman(['rm', API_CONTAINER]);
    const restarted = await startApi(port);
    const tokenAgain = await signIn(restarted, password);
    const kept = await api<EndpointView>(restarted, `/endpoints/${endpoint.body.id}`, { token: tokenAgain });
    expectStatus('GET /endpoints/{id} after the restart', kept.status, 200, kept.body);
    if (!showsCertificate(kept.body, fingerprint))
      throw new Error(`after the restart the endpoint lost its certificate: ${JSON.stringify(kept.body)}`);
    step('a new API container on the same volume kept the administrator, the endpoint and its certificate');
    stop(API_CONTAINER);
  } finally {
    await tls.close();
    removeLeftovers();
  }
}

check().then(
  () => step('images check: ok'),
  (error: unknown) => {
    if (error instanceof Skip) {
      step(`images check skipped: ${error.message}`);
      return;
    }
    process.stderr.write(`images check failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
