// The tests every text-based upgrader must pass against its test server (text-servers.ts);
// each protocol's spec runs this suite and adds what is particular to it.
import type { Upgrader } from '../../../src/probes/starttls/starttls';
import {
  type ServerCredentials,
  startTextServer,
  type TextProtocol,
  type TextServer,
  type TextServerOptions,
  upgradeAndHandshake,
} from './text-servers';

export interface SuiteCase {
  protocol: TextProtocol;
  upgrade: Upgrader;
  /** Mints the test server's certificate for a name. */
  mint: (serverName: string) => Promise<ServerCredentials>;
  /** What the refusing server answers to the upgrade command, and the error that must quote it. */
  refusal: { reply?: string; error: string };
  /** The error when the server goes silent right after its greeting, with readTimeoutMs 300. */
  stalledAfterGreeting: string;
  /** The error when the server never greets (XMPP: never answers the stream header). */
  stalledAtGreeting: string;
  /** The error when the server goes silent at the upgrade command. */
  stalledAtUpgrade: string;
  /** The error for a greeting longer than any cap. */
  overlong: RegExp;
}

export function describeUpgrader(suite: SuiteCase): void {
  const serverName = `${suite.protocol}.example.test`;
  const servers: TextServer[] = [];
  let credentials: Promise<ServerCredentials> | undefined;
  const start = async (options: Omit<TextServerOptions, 'protocol' | 'credentials'> = {}) => {
    credentials ??= suite.mint(serverName);
    const server = await startTextServer({ protocol: suite.protocol, serverName, credentials: await credentials, ...options });
    servers.push(server);
    return server;
  };
  const run = (server: TextServer, readTimeoutMs = 300) => upgradeAndHandshake(server.port, suite.upgrade, { serverName, readTimeoutMs });

  afterAll(() => Promise.all(servers.map((server) => server.close())));

  it('upgrades, and the TLS handshake over the same socket sees the server certificate', async () => {
    const server = await start();
    await expect(run(server, 5000)).resolves.toBe(server.fingerprint256);
    expect(server.handshakes).toBe(1);
  });

  it('fails with "server did not offer STARTTLS" when the server does not offer it', async () => {
    const server = await start({ offerStarttls: false });
    await expect(run(server, 5000)).rejects.toThrow(/^server did not offer STARTTLS/);
    expect(server.handshakes).toBe(0);
  });

  it('fails with the server reply quoted when the upgrade is refused', async () => {
    const server = await start({ refuse: suite.refusal.reply ?? '' });
    const error = await run(server, 5000).catch((caught: Error) => caught);
    expect(error).toMatchObject({ name: 'StarttlsError', message: suite.refusal.error });
  });

  it('ends by the read deadline, naming the step, when the server stalls after its greeting', async () => {
    const server = await start({ stall: 'afterGreeting' });
    const began = Date.now();
    await expect(run(server)).rejects.toThrow(suite.stalledAfterGreeting);
    expect(Date.now() - began).toBeGreaterThanOrEqual(290);
    expect(Date.now() - began).toBeLessThan(3000);
  });

  it('ends by the read deadline when the server never greets', async () => {
    const server = await start({ stall: 'greeting' });
    await expect(run(server)).rejects.toThrow(suite.stalledAtGreeting);
  });

  it('ends by the read deadline when the server stalls at the upgrade command', async () => {
    const server = await start({ stall: 'upgrade' });
    await expect(run(server)).rejects.toThrow(suite.stalledAtUpgrade);
  });

  it('stops at the cap when a line (or the XML) never ends', async () => {
    const server = await start({ overlongGreeting: true });
    await expect(run(server, 5000)).rejects.toThrow(suite.overlong);
  });

  it('fails naming the step when the server hangs up after its greeting', async () => {
    const server = await start({ stall: 'afterGreeting' });
    // close() destroys every open connection while the client waits for its first answer.
    const pending = run(server, 5000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.close();
    await expect(pending).rejects.toThrow(/^server closed the connection before the /);
  });
}
