import { createHash } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { mintCertificate, type MintedCertificate, pemBundle } from '@certkeeper/domain/testing';
import { type RunningService, startService, stopService, sharedServiceEnvironment } from './support/service-process';
import { createTestDatabase } from './support/test-app';
import { databaseUrl, withAdminClient } from './support/test-database';

interface Verdict {
  trustedBy: string[];
  isTrustAnchor: boolean;
}

const ADMIN = { email: 'admin@replicas.test', password: 'replica-password-1' };
const sha256 = (certificate: MintedCertificate) => createHash('sha256').update(certificate.der).digest('hex');

/** The CCADB CSV with one root, included by Apple (for servers) and Chrome, not by Mozilla (e-mail only) nor Microsoft. */
function ccadbCsv(root: MintedCertificate): string {
  const header =
    'CA Owner,Certificate Name,SHA-256 Fingerprint,Apple Status,Apple Trust Bits,Google Chrome Status,Microsoft Status,Microsoft EKUs,Mozilla Status,Mozilla Trust Bits';
  const fingerprint = sha256(root).toUpperCase();
  return `${header}\r\nReplica Owner,Replica Root,${fingerprint},Included,serverAuth,Included,Not Included,,Included,Email\r\n`;
}

/**
 * Two API processes on one database, as two replicas behind a load balancer: whatever one of
 * them stored, evaluated or refreshed, the other answers the same.
 */
describe('trust verdicts on two replicas', () => {
  let directory: string;
  let databaseName: string;
  let replicas: RunningService[] = [];
  let token: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'certkeeper-replicas-'));
    await chmod(directory, 0o755);
    databaseName = await createTestDatabase();
  });

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => stopService(replica)));
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`));
    await rm(directory, { recursive: true, force: true });
  });

  const call = async (replica: RunningService, method: string, path: string, body?: string, contentType = 'application/json') => {
    const response = await fetch(`${replica.baseUrl}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
      body,
      signal: AbortSignal.timeout(20_000),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const upload = (replica: RunningService, ...certificates: MintedCertificate[]) =>
    call(replica, 'POST', '/certificates', pemBundle(...certificates), 'application/x-pem-file');
  const verdictOn = async (replica: RunningService, certificate: MintedCertificate): Promise<Verdict> => {
    const { status, body } = await call(replica, 'GET', `/certificates/${sha256(certificate)}`);
    expect(status).toBe(200);
    return { trustedBy: body.trustedBy as string[], isTrustAnchor: body.isTrustAnchor as boolean };
  };

  it('store, evaluate and refresh on either replica, and answer the same on both', async () => {
    const root = await mintCertificate({ subject: 'CN=Replica Root, O=Replicas', ca: true });
    const intermediate = await mintCertificate({ subject: 'CN=Replica Issuing CA, O=Replicas', ca: true, pathLength: 0, issuer: root });
    const early = await mintCertificate({ sans: ['early.example.com'], issuer: intermediate });
    const late = await mintCertificate({ sans: ['late.example.com'], issuer: intermediate });
    await writeFile(join(directory, 'roots.csv'), ccadbCsv(root));
    await writeFile(join(directory, 'roots.pem'), root.pem);

    const env = {
      ...sharedServiceEnvironment(databaseUrl(databaseName), ADMIN),
      ROOT_STORES_CSV_URL: pathToFileURL(join(directory, 'roots.csv')).href,
      ROOT_STORES_PEM_URLS: pathToFileURL(join(directory, 'roots.pem')).href,
    };
    // Both start at once: the first-start seed of the Mozilla store happens once.
    const started = await Promise.allSettled(['a', 'b'].map((name) => startService({ ...env, DATA_DIR: join(directory, name) })));
    replicas = started.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    for (const start of started) if (start.status === 'rejected') throw start.reason;
    const [a, b] = replicas;
    const login = await fetch(`${a.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    token = ((await login.json()) as { token: string }).token;
    const anchorCounts = async (replica: RunningService) =>
      ((await call(replica, 'GET', '/root-stores')).body as unknown as { id: string; anchorCount: number }[]).map((store) => [
        store.id,
        store.anchorCount,
      ]);
    const bundled = new Set(rootCertificates).size;
    expect([await anchorCounts(a), await anchorCounts(b)]).toEqual(
      Array(2).fill([
        ['mozilla', bundled],
        ['apple', 0],
        ['microsoft', 0],
        ['chrome', 0],
      ]),
    );

    // A leaf whose intermediate nobody has seen yet, stored through B: no store.
    expect((await upload(b, early)).body).toMatchObject({ trustedBy: [], isTrustAnchor: false });

    // A refreshes the root stores from the (file) sources.
    const refresh = await call(a, 'POST', '/maintenance/tasks/refresh-root-stores/run');
    expect(refresh.body).toMatchObject({ outcome: 'succeeded', counts: { mozilla: 0, apple: 1, microsoft: 0, chrome: 1 } });
    expect(await anchorCounts(b)).toEqual([
      ['mozilla', 0],
      ['apple', 1],
      ['microsoft', 0],
      ['chrome', 1],
    ]);

    // The intermediate arrives through A: A's background pass completes B's leaf.
    expect((await upload(a, intermediate)).body).toMatchObject({ trustedBy: ['apple', 'chrome'] });
    const deadline = Date.now() + 10_000;
    while ((await verdictOn(b, early)).trustedBy.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

    // A leaf arriving through B with its chain known is evaluated at once.
    expect((await upload(b, late)).body).toMatchObject({ trustedBy: ['apple', 'chrome'] });

    const expected: [MintedCertificate, Verdict][] = [
      [root, { trustedBy: ['apple', 'chrome'], isTrustAnchor: true }],
      [intermediate, { trustedBy: ['apple', 'chrome'], isTrustAnchor: false }],
      [early, { trustedBy: ['apple', 'chrome'], isTrustAnchor: false }],
      [late, { trustedBy: ['apple', 'chrome'], isTrustAnchor: false }],
    ];
    for (const [certificate, verdict] of expected) {
      expect([await verdictOn(a, certificate), await verdictOn(b, certificate)]).toEqual([verdict, verdict]);
    }
  }, 90_000);
});
