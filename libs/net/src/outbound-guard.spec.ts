import type { LookupAddress } from 'node:dns';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { OutboundDenyList, parseOutboundDeny } from './outbound-deny';
import { OutboundGuard, OutboundRefusedError, type Resolver } from './outbound-guard';

function denyList(raw: string): OutboundDenyList {
  const result = parseOutboundDeny(raw);
  if (!result.ok) throw new Error(result.problem);
  return result.value;
}

/** A resolver answering from a table, so no test depends on real DNS. */
function fakeResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  return Object.assign(resolve, { calls });
}

describe('OutboundGuard.resolve', () => {
  const resolver = fakeResolver({
    'metadata.test': ['169.254.169.254'],
    'mapped.test': ['::ffff:169.254.169.254'],
    // What a DNS64 resolver answers for an IPv4-only name on an IPv6-only network.
    'dns64.test': ['64:ff9b::a9fe:a9fe'],
    'mixed.test': ['93.184.216.34', 'fd00:ec2::254'],
    'public.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  });
  const guard = new OutboundGuard(OutboundDenyList.DEFAULT, resolver);

  it('refuses a denied IP literal without resolving anything, naming the entry', async () => {
    await expect(guard.resolve('169.254.169.254')).rejects.toThrow(
      new OutboundRefusedError('refused by OUTBOUND_DENY: 169.254.169.254 is in 169.254.0.0/16'),
    );
    await expect(guard.resolve('fe80::1')).rejects.toThrow('refused by OUTBOUND_DENY: fe80::1 is in fe80::/10');
    await expect(guard.resolve('::ffff:169.254.169.254')).rejects.toThrow('is in 169.254.0.0/16');
    await expect(guard.resolve('64:ff9b::a9fe:a9fe')).rejects.toThrow('refused by OUTBOUND_DENY: 64:ff9b::a9fe:a9fe is in 169.254.0.0/16');
    expect(resolver.calls).toEqual([]);
  });

  it('refuses a name that resolves to a denied address, mapped and NAT64 IPv6 included', async () => {
    await expect(guard.resolve('metadata.test')).rejects.toThrow(
      'refused by OUTBOUND_DENY: metadata.test resolves to 169.254.169.254, which is in 169.254.0.0/16',
    );
    await expect(guard.resolve('mapped.test')).rejects.toThrow(
      'mapped.test resolves to ::ffff:169.254.169.254, which is in 169.254.0.0/16',
    );
    await expect(guard.resolve('dns64.test')).rejects.toThrow('dns64.test resolves to 64:ff9b::a9fe:a9fe, which is in 169.254.0.0/16');
  });

  it('refuses a name when any of its addresses is denied', async () => {
    await expect(guard.resolve('mixed.test')).rejects.toMatchObject({
      code: 'EOUTBOUNDDENIED',
      message: 'refused by OUTBOUND_DENY: mixed.test resolves to fd00:ec2::254, which is in fd00:ec2::254/128',
    });
  });

  it('returns every address of an allowed name, and passes resolver errors through', async () => {
    await expect(guard.resolve('public.test')).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
    await expect(guard.resolve('93.184.216.34')).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
    await expect(guard.resolve('unknown.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('checks real name resolution too: localhost with loopback denied', async () => {
    const loopbackDenied = new OutboundGuard(denyList('127.0.0.0/8,::1/128'));
    await expect(loopbackDenied.resolve('localhost')).rejects.toThrow(
      /^refused by OUTBOUND_DENY: localhost resolves to (127\.0\.0\.1|::1)/,
    );
    await expect(OutboundGuard.DEFAULT.resolve('localhost')).resolves.not.toHaveLength(0);
  });
});

describe('OutboundGuard on real connections', () => {
  let server: Server;
  let port: number;
  const accepted: Socket[] = [];

  beforeAll(async () => {
    server = createServer((socket) => void accepted.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => accepted.splice(0).forEach((socket) => socket.destroy()));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Connects with the guard's options; resolves with the remote address or the error. */
  function dial(guard: OutboundGuard, host: string, autoSelectFamily: boolean): Promise<string | Error> {
    return new Promise((resolve) => {
      let socket: Socket;
      try {
        socket = connect({ ...guard.connectTo(host), port, autoSelectFamily });
      } catch (error) {
        return resolve(error as Error);
      }
      socket.once('connect', () => {
        resolve(socket.remoteAddress ?? '');
        socket.destroy();
      });
      socket.once('error', resolve);
    });
  }

  it.each([true, false])('dials the address it checked (autoSelectFamily %s)', async (autoSelectFamily) => {
    const guard = new OutboundGuard(denyList('127.0.0.2/32'), fakeResolver({ 'allowed.test': ['127.0.0.1'] }));
    await expect(dial(guard, 'allowed.test', autoSelectFamily)).resolves.toBe('127.0.0.1');
  });

  it.each([true, false])('refuses a name resolving to a denied address before any connection (autoSelectFamily %s)', async (auto) => {
    const guard = new OutboundGuard(denyList('127.0.0.0/8'), fakeResolver({ 'rebound.test': ['127.0.0.1'] }));
    const outcome = await dial(guard, 'rebound.test', auto);
    expect(outcome).toBeInstanceOf(OutboundRefusedError);
    expect((outcome as Error).message).toBe('refused by OUTBOUND_DENY: rebound.test resolves to 127.0.0.1, which is in 127.0.0.0/8');
    expect(accepted).toHaveLength(0);
  });

  it('refuses a denied IP literal at once: Node would never call lookup for it', async () => {
    const guard = new OutboundGuard(denyList('127.0.0.0/8'));
    await expect(dial(guard, '127.0.0.1', true)).resolves.toEqual(
      new OutboundRefusedError('refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8'),
    );
    await expect(dial(new OutboundGuard(OutboundDenyList.DEFAULT), '127.0.0.1', true)).resolves.toBe('127.0.0.1');
  });

  it('judges every connection by its own answer, so a name that rebinds is caught', async () => {
    let answer = '127.0.0.1';
    const rebinding: Resolver = () => Promise.resolve([{ address: answer, family: 4 }]);
    const guard = new OutboundGuard(denyList('169.254.0.0/16'), rebinding);
    await expect(dial(guard, 'rebinding.test', true)).resolves.toBe('127.0.0.1');
    answer = '169.254.169.254';
    await expect(dial(guard, 'rebinding.test', true)).resolves.toBeInstanceOf(OutboundRefusedError);
  });
});
