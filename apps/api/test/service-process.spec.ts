import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { mintCertificate } from '@certkeeper/domain/testing';
import { SERVICE_MAIN, startService, stopService } from './support/service-process';
import { SwappableTlsServer } from './support/tls-servers';

async function loginToken(baseUrl: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
    signal: AbortSignal.timeout(10_000),
  });
  return ((await response.json()) as { token: string }).token;
}

async function loginStatus(baseUrl: string, email: string, password: string): Promise<number> {
  const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
    signal: AbortSignal.timeout(10_000),
  });
  return response.status;
}

/** The start command's real process: embedded PostgreSQL, generated secrets, clean shutdown. */
describe('the service process on embedded PostgreSQL', () => {
  let dataDir: string;
  // The first administrator's password, read from the file the first start wrote.
  let password = '';

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'certkeeper-service-'));
    await chmod(dataDir, 0o755);
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('starts fresh, prints where it listens and where the admin password is, and stops cleanly on SIGTERM', async () => {
    const service = await startService({ DATA_DIR: dataDir });
    const passwordFile = join(dataDir, 'initial-admin-password');
    expect(service.output()).toContain('First administrator: admin@localhost');
    expect(service.output()).toContain(`Password file:       ${passwordFile}`);
    // Only the service's user may read it, and no output line (banner or JSON log) holds the password.
    expect((await stat(passwordFile)).mode & 0o777).toBe(0o600);
    password = (await readFile(passwordFile, 'utf8')).trim();
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(service.output()).not.toContain(password);
    expect(await loginStatus(service.baseUrl, 'admin@localhost', password)).toBe(200);
    expect((await fetch(`${service.baseUrl}/api-docs/index.html`)).status).toBe(200);

    const secrets = await stat(join(dataDir, 'secrets.json'));
    expect(secrets.mode & 0o777).toBe(0o600);

    expect(await stopService(service, 'SIGTERM')).toBe(0);
    // A clean shutdown leaves no postmaster.pid behind.
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const second = await startService({ DATA_DIR: dataDir });
    try {
      expect(second.output()).not.toContain('First administrator');
      expect(await loginStatus(second.baseUrl, 'admin@localhost', password)).toBe(200);
      const keptSecrets = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
      expect(Object.keys(keptSecrets).sort()).toEqual(['encryptionKey', 'jwtSecret', 'postgresPassword']);
      // No generated secret reaches the log.
      for (const secret of Object.values(keptSecrets)) expect(second.output()).not.toContain(secret);
    } finally {
      expect(await stopService(second, 'SIGINT')).toBe(0);
    }
  }, 90_000);

  it('runs the embedded scanner: a host added after start is observed without deploying anything else', async () => {
    const minted = await mintCertificate({ subject: 'CN=embedded.example.test', sans: ['embedded.example.test'] });
    const tls = new SwappableTlsServer();
    await tls.serve('embedded.example.test', minted);
    await tls.listen();
    const service = await startService({ DATA_DIR: dataDir, SCANNER_NEW_WORK_POLL_MS: '300', SCANNER_HANDSHAKE_TIMEOUT_MS: '2000' });
    try {
      const token = await loginToken(service.baseUrl, 'admin@localhost', password);
      const created = await fetch(`${service.baseUrl}/api/v1/endpoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ name: 'embedded', dnsName: 'embedded.example.test', ipAddress: '127.0.0.1', port: tls.port }),
      });
      const { id } = (await created.json()) as { id: string };
      const deadline = Date.now() + 20_000;
      let fingerprints: string[] = [];
      while (fingerprints.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const detail = await fetch(`${service.baseUrl}/api/v1/endpoints/${id}`, { headers: { authorization: `Bearer ${token}` } });
        fingerprints = ((await detail.json()) as { currentCertificates: { fingerprint: string }[] }).currentCertificates.map(
          (c) => c.fingerprint,
        );
      }
      expect(fingerprints).toEqual([createHash('sha256').update(minted.der).digest('hex')]);
      expect(service.output()).toContain('Started the embedded scanner agent');
    } finally {
      expect(await stopService(service, 'SIGTERM')).toBe(0);
      await tls.close();
    }
  }, 60_000);

  it('refuses to start with bad configuration, naming every bad variable', async () => {
    const child = spawn(process.execPath, [SERVICE_MAIN], {
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty', DATABASE_URL: 'mysql://x', JWT_TTL: 'forever' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    for (const variable of ['PORT', 'DATABASE_URL', 'JWT_TTL', 'JWT_SECRET', 'ENCRYPTION_KEY']) expect(stderr).toContain(`${variable}:`);
  });

  // The image runs as uid 1000; a bind mount owned by root is the usual way to meet this.
  it('stops with a sentence naming a DATA_DIR it may not write, its user and the fix', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'certkeeper-readonly-'));
    await chmod(parent, 0o755);
    const asRoot = process.getuid?.() === 0;
    // As root, run as nobody against a directory root owns (chmod fails with EPERM); otherwise the
    // directory cannot be created in a parent this user may not write (mkdir fails with EACCES).
    const target = asRoot ? parent : join(parent, 'data');
    if (!asRoot) await chmod(parent, 0o555);
    try {
      const child = spawn(process.execPath, [SERVICE_MAIN], {
        env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: target },
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      const uid = asRoot ? 65534 : process.getuid!();
      expect(output).toContain(`DATA_DIR ${target} is not writable by uid ${uid}`);
      expect(output).toContain(`chown -R ${uid} ${target}`);
      expect(output).toMatch(asRoot ? /EPERM: operation not permitted, chmod/ : /EACCES: permission denied, mkdir/);
    } finally {
      await chmod(parent, 0o755);
      await rm(parent, { recursive: true, force: true });
    }
  }, 30_000);
});
