import { OUTBOUND_DENY_DEFAULTS, OutboundDenyList, parseOutboundDeny } from './outbound-deny';

function parsed(raw: string): OutboundDenyList {
  const result = parseOutboundDeny(raw);
  if (!result.ok) throw new Error(result.problem);
  return result.value;
}

function problemOf(raw: string): string {
  const result = parseOutboundDeny(raw);
  if (result.ok) throw new Error(`expected a problem, got ${result.value.toString()}`);
  return result.problem;
}

describe('parseOutboundDeny', () => {
  it('reads addresses and CIDR blocks of both families, separated by commas or white space', () => {
    expect(parsed('10.0.0.0/8, 192.168.1.7 fc00::/7,::1').cidrs).toEqual(['10.0.0.0/8', '192.168.1.7/32', 'fc00::/7', '::1/128']);
  });

  it('writes addresses the way Node does, so one block is one entry whatever its spelling', () => {
    expect(parsed('FD00:EC2:0:0::254/128,fd00:ec2::254,::FFFF:a9fe:a9fe').cidrs).toEqual([
      'fd00:ec2::254/128',
      '::ffff:169.254.169.254/128',
    ]);
  });

  it('replaces the default list; "default" stands for it and "none" turns the guard off', () => {
    expect(parsed('10.0.0.0/8').cidrs).toEqual(['10.0.0.0/8']);
    expect(parsed('default,10.0.0.0/8').cidrs).toEqual([...OUTBOUND_DENY_DEFAULTS, '10.0.0.0/8']);
    expect(parsed('DEFAULT').cidrs).toEqual(OutboundDenyList.DEFAULT.cidrs);
    expect(parsed('none')).toBe(OutboundDenyList.NONE);
    expect(OutboundDenyList.NONE.entryFor('169.254.169.254')).toBeNull();
  });

  it('reads back its own spelling', () => {
    for (const list of [OutboundDenyList.DEFAULT, OutboundDenyList.NONE, parsed('default,10.0.0.0/8')]) {
      expect(parsed(list.toString()).cidrs).toEqual(list.cidrs);
    }
  });

  it.each([
    ['10.0.0.0/33', 1],
    ['fc00::/129', 1],
    ['10.0.0.0/8,10.0.0/8', 2],
    ['example.com', 1],
    ['10.0.0.0/', 1],
    ['10.0.0.0/8/8', 1],
    ['10.0.0.0/-1', 1],
    ['fe80::1%eth0', 1],
    ['default,*', 2],
  ])('names the bad entry of %s without repeating it', (raw, entry) => {
    const problem = problemOf(raw);
    expect(problem).toBe(`entry ${entry} is not an IPv4 or IPv6 address or CIDR block (such as 10.0.0.0/8 or fc00::/7)`);
  });

  it('refuses "none" next to anything else', () => {
    expect(problemOf('none,10.0.0.0/8')).toBe('"none" must stand alone');
  });
});

describe('OutboundDenyList.entryFor', () => {
  const list = parsed('default,127.0.0.0/8,fc00::/7');

  it.each([
    ['169.254.169.254', '169.254.0.0/16'],
    ['169.254.170.2', '169.254.0.0/16'],
    ['100.100.100.200', '100.100.100.200/32'],
    ['fe80::1', 'fe80::/10'],
    ['fd00:ec2::254', 'fd00:ec2::254/128'],
    ['FD00:EC2:0::254', 'fd00:ec2::254/128'],
    ['127.0.0.2', '127.0.0.0/8'],
    ['fd12:3456::1', 'fc00::/7'],
    // IPv4-mapped IPv6: the same IPv4 address reached through an IPv6 socket.
    ['::ffff:169.254.169.254', '169.254.0.0/16'],
    ['::ffff:a9fe:a9fe', '169.254.0.0/16'],
    ['0:0:0:0:0:ffff:7f00:1', '127.0.0.0/8'],
    // NAT64 (64:ff9b::/96): the IPv4 address a NAT64 gateway would connect to, however it is spelled.
    ['64:ff9b::a9fe:a9fe', '169.254.0.0/16'],
    ['64:ff9b::169.254.170.2', '169.254.0.0/16'],
    ['0064:FF9B:0000:0000:0000:0000:6464:64c8', '100.100.100.200/32'],
    ['64:ff9b::7f00:1', '127.0.0.0/8'],
    ['64:ff9b::7f00:0', '127.0.0.0/8'],
  ])('denies %s (in %s)', (address, entry) => {
    expect(list.entryFor(address)).toBe(entry);
  });

  it.each([
    '93.184.216.34',
    '100.100.100.201',
    '2606:2800:220:1:248:1893:25c8:1946',
    '::1',
    '::ffff:93.184.216.34',
    '64:ff9b::5db8:d822',
    '64:ff9b::',
    // Outside the /96: the local-use prefix 64:ff9b:1::/48 is not the well-known one.
    '64:ff9b:1::a9fe:a9fe',
    'not-an-ip',
  ])('allows %s', (address) => {
    expect(list.entryFor(address)).toBeNull();
  });

  it('refuses the cloud metadata address through NAT64 by default', () => {
    expect(OutboundDenyList.DEFAULT.entryFor('64:ff9b::a9fe:a9fe')).toBe('169.254.0.0/16');
    expect(OutboundDenyList.DEFAULT.entryFor('64:ff9b::a9fe:aa02')).toBe('169.254.0.0/16');
  });

  it('names an IPv6 entry covering the NAT64 prefix itself before the IPv4 entry its address carries', () => {
    expect(parsed('169.254.0.0/16,64:ff9b::/96').entryFor('64:ff9b::a9fe:a9fe')).toBe('64:ff9b::/96');
    expect(parsed('64:ff9b::/96').entryFor('64:ff9b::808:808')).toBe('64:ff9b::/96');
  });

  it('lets loopback through by default', () => {
    expect(OutboundDenyList.DEFAULT.entryFor('127.0.0.1')).toBeNull();
    expect(OutboundDenyList.DEFAULT.entryFor('::1')).toBeNull();
  });
});
