import { CCADB_SOURCES } from './app-config';
import { ConfigurationError, parseDuration, parseEnvironment, parseTrustProxy } from './environment';

const SECRET = 'x'.repeat(32);
const KEY_HEX = 'ab'.repeat(32);

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseEnvironment(env, '/srv');
  } catch (error) {
    if (error instanceof ConfigurationError) return error.problems;
    throw error;
  }
  return [];
}

describe('parseEnvironment', () => {
  it('defaults to the embedded database under ./data', () => {
    const env = parseEnvironment({}, '/srv');
    expect(env).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: null,
      dataDir: '/srv/data',
      jwtSecret: null,
      jwtTtlSeconds: 12 * 3600,
      encryptionKey: null,
      embeddedScanner: true,
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const env = parseEnvironment(
      {
        PORT: '9000',
        DATABASE_URL: 'postgresql://u:p@db:5432/certkeeper',
        DATA_DIR: 'state',
        JWT_SECRET: SECRET,
        JWT_TTL: '30m',
        ENCRYPTION_KEY: KEY_HEX,
        PUBLIC_URL: 'https://certs.example.com/',
        ADMIN_EMAIL: 'Ops@Example.com',
        ADMIN_PASSWORD: 'long-enough',
        EMBEDDED_SCANNER: 'true',
        LOG_LEVEL: 'warn',
      },
      '/srv',
    );
    expect(env).toMatchObject({
      port: 9000,
      databaseUrl: 'postgresql://u:p@db:5432/certkeeper',
      dataDir: '/srv/state',
      jwtSecret: SECRET,
      jwtTtlSeconds: 1800,
      publicUrl: 'https://certs.example.com',
      adminEmail: 'ops@example.com',
      adminPassword: 'long-enough',
      embeddedScanner: true,
      logLevel: 'warn',
    });
    expect(env.encryptionKey).toEqual(Buffer.from(KEY_HEX, 'hex'));
  });

  it('accepts a base64 encryption key of 32 bytes', () => {
    const key = Buffer.alloc(32, 7);
    expect(parseEnvironment({ ENCRYPTION_KEY: key.toString('base64') }).encryptionKey).toEqual(key);
  });

  it('names every bad variable at once', () => {
    const problems = problemsOf({
      PORT: '70000',
      DATABASE_URL: 'mysql://db/x',
      JWT_SECRET: 'short',
      JWT_TTL: '10 years',
      ENCRYPTION_KEY: 'abc',
      PUBLIC_URL: 'ftp://x',
      ADMIN_EMAIL: 'nobody',
      ADMIN_PASSWORD: 'short',
      EMBEDDED_SCANNER: 'maybe',
      LOG_LEVEL: 'loud',
    });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(
      [
        'ADMIN_EMAIL',
        'ADMIN_PASSWORD',
        'DATABASE_URL',
        'EMBEDDED_SCANNER',
        'ENCRYPTION_KEY',
        'JWT_SECRET',
        'JWT_TTL',
        'LOG_LEVEL',
        'PORT',
        'PUBLIC_URL',
      ].sort(),
    );
  });

  it('requires both secrets with an external database, and never echoes a secret', () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://db/x' })).toEqual([
      'JWT_SECRET: required when DATABASE_URL is set',
      'ENCRYPTION_KEY: required when DATABASE_URL is set',
    ]);
    const problems = problemsOf({ JWT_SECRET: 'hunter2-is-too-short' });
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('turns the embedded scanner off by default with an external database', () => {
    expect(parseEnvironment({ DATABASE_URL: 'postgres://db/x', JWT_SECRET: SECRET, ENCRYPTION_KEY: KEY_HEX }).embeddedScanner).toBe(false);
  });

  it('reads the root-store sources, defaulting to the public CCADB reports', () => {
    expect(parseEnvironment({}).rootStoreSources).toEqual(CCADB_SOURCES);
    expect(
      parseEnvironment({
        ROOT_STORES_CSV_URL: 'file:///srv/ccadb/roots.csv',
        ROOT_STORES_PEM_URLS: 'https://mirror.example.com/a.pem, file:///srv/ccadb/b.pem',
        ROOT_STORES_FETCH_TIMEOUT: '90s',
      }).rootStoreSources,
    ).toEqual({
      csvUrl: 'file:///srv/ccadb/roots.csv',
      pemUrls: ['https://mirror.example.com/a.pem', 'file:///srv/ccadb/b.pem'],
      fetchTimeoutMs: 90_000,
    });
    const problems = problemsOf({
      ROOT_STORES_CSV_URL: 'ftp://user:hunter2@mirror.example.com/roots.csv',
      ROOT_STORES_PEM_URLS: 'https://ok.example.com/a.pem,not a url',
      ROOT_STORES_FETCH_TIMEOUT: '2h',
    });
    expect(problems.map((p) => p.split(':')[0])).toEqual(['ROOT_STORES_CSV_URL', 'ROOT_STORES_PEM_URLS', 'ROOT_STORES_FETCH_TIMEOUT']);
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('takes secrets that begin with "!" as they are', () => {
    const secret = `!${'s'.repeat(40)}`;
    const env = parseEnvironment({ JWT_SECRET: secret, ADMIN_PASSWORD: '!correct horse', HOST: '!odd-but-valid' });
    expect(env).toMatchObject({ jwtSecret: secret, adminPassword: '!correct horse', host: '!odd-but-valid' });
  });

  it('names a bad secret without printing any of it', () => {
    const problems = problemsOf({ JWT_SECRET: '!hunter2', ADMIN_PASSWORD: '!pw', ENCRYPTION_KEY: '!key-material' });
    expect(problems.map((p) => p.split(':')[0])).toEqual(['JWT_SECRET', 'ENCRYPTION_KEY', 'ADMIN_PASSWORD']);
    const text = problems.join('\n');
    for (const fragment of ['hunter2', '!pw', 'key-material']) expect(text).not.toContain(fragment);
  });

  it('treats blank values as unset', () => {
    expect(parseEnvironment({ PORT: '  ', DATABASE_URL: '' }).port).toBe(8080);
  });
});

describe('parseDuration', () => {
  it.each([
    ['3600', 3600],
    ['90s', 90],
    ['30m', 1800],
    ['12h', 43200],
    ['7d', 604800],
  ])('reads %s as %i seconds', (raw, seconds) => expect(parseDuration(raw)).toEqual({ ok: true, value: seconds }));

  it.each(['', 'soon', '-5m', '1.5h', '30s', '31d'])('refuses %j', (raw) => expect(parseDuration(raw)).toMatchObject({ ok: false }));
});

describe('parseTrustProxy', () => {
  it.each([
    ['false', false],
    ['1', 1],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.2,::1/128, uniquelocal', ['10.0.0.0/8', '192.168.1.2', '::1/128', 'uniquelocal']],
  ])('reads %j', (raw, value) => expect(parseTrustProxy(raw)).toEqual({ ok: true, value }));

  it.each(['true', '0', '11', '10.0.0.0/33', '::1/129', 'proxy.example.com', '10.0.0.1/8/1'])('refuses %j', (raw) =>
    expect(parseTrustProxy(raw)).toMatchObject({ ok: false }),
  );

  it('is off unless configured', () => {
    expect(parseEnvironment({}).trustProxy).toBe(false);
    expect(parseEnvironment({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
  });
});
