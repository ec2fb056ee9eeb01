import {
  type Checked,
  formatAddressValue,
  MAX_NETWORK_ADDRESSES,
  type NetworkScope,
  normaliseAddress,
  parseAddressValue,
  parseNetworkPorts,
  parseNetworkRanges,
  parseNetworkScope,
  parseRangeEntry,
  scopeAddresses,
  scopeContains,
  scopeProbeTargets,
} from './ranges';

function scopeOf(ranges: unknown, ports?: unknown): NetworkScope {
  const parsed = parseNetworkScope({ ranges, ports });
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return parsed.value;
}

function problemsOf<T>(checked: Checked<T>): string[] {
  if (checked.ok) throw new Error('expected problems');
  return checked.problems;
}

describe('addresses', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:0db8:0000:0001:0000:0000:0000:0001', '2001:db8:0:1::1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::', '::'],
    ['::1', '::1'],
    ['fe80::', 'fe80::'],
    ['::ffff:10.0.0.1', '::ffff:10.0.0.1'],
    ['::FFFF:a00:1', '::ffff:10.0.0.1'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
    ['[2001:db8::1]', '2001:db8::1'],
    [' 10.0.0.1 ', '10.0.0.1'],
  ])('normalises %s to %s', (input, expected) => {
    expect(normaliseAddress(input)).toBe(expected);
  });

  it.each([
    '10.0.0',
    '10.0.0.256',
    '010.0.0.1',
    '1.2.3.4.5',
    '2001:db8::1::1',
    '2001:db8:1:2:3:4:5:6:7',
    'fe80::1%eth0',
    '12345::',
    'g::1',
    'example.com',
    '',
  ])('refuses %j', (input) => {
    expect(parseAddressValue(input)).toBeNull();
  });

  it('round-trips integers', () => {
    expect(parseAddressValue('10.0.0.1')).toEqual({ family: 4, value: 0x0a000001n });
    expect(parseAddressValue('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toEqual({ family: 6, value: (1n << 128n) - 1n });
    expect(formatAddressValue(4, 0xffffffffn)).toBe('255.255.255.255');
    expect(formatAddressValue(6, (1n << 128n) - 1n)).toBe('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff');
  });
});

describe('parseRangeEntry', () => {
  const entry = (text: string) => {
    const parsed = parseRangeEntry(text);
    if (!parsed.ok) throw new Error(parsed.problem);
    return parsed.entry;
  };

  it('reads addresses, CIDR blocks and dash ranges, normalised', () => {
    expect(entry('10.0.0.7')).toEqual({
      kind: 'address',
      text: '10.0.0.7',
      interval: { family: 4, first: 0x0a000007n, last: 0x0a000007n },
    });
    expect(entry('10.0.0.0/24')).toMatchObject({ kind: 'cidr', text: '10.0.0.0/24', interval: { first: 0x0a000000n, last: 0x0a0000ffn } });
    expect(entry('10.0.0.77/24').text).toBe('10.0.0.0/24');
    expect(entry('2001:DB8::/120')).toMatchObject({ kind: 'cidr', text: '2001:db8::/120', interval: { family: 6 } });
    expect(entry('192.0.2.10 - 192.0.2.40')).toMatchObject({ kind: 'range', text: '192.0.2.10-192.0.2.40' });
    expect(entry('2001:db8::1-2001:DB8::FF').text).toBe('2001:db8::1-2001:db8::ff');
    expect(entry('10.0.0.5-10.0.0.5').interval).toEqual({ family: 4, first: 0x0a000005n, last: 0x0a000005n });
  });

  it.each([
    ['10.0.0.1/32', 1n],
    ['10.0.0.0/31', 2n],
    ['10.0.0.0/16', 65_536n],
    ['0.0.0.0/0', 1n << 32n],
    ['2001:db8::1/128', 1n],
    ['2001:db8::/112', 65_536n],
    ['::/0', 1n << 128n],
  ])('%s covers %s addresses', (text, size) => {
    const { first, last } = entry(text).interval;
    expect(last - first + 1n).toBe(size);
  });

  it.each([
    ['', 'is empty'],
    ['10.0.0.0/33', 'has prefix /33, out of range for IPv4 (0 to 32)'],
    ['2001:db8::/129', 'has prefix /129, out of range for IPv6 (0 to 128)'],
    ['10.0.0.0/', 'is not an IPv4'],
    ['10.0.0.0/-1', 'is not an IPv4'],
    ['10.0.0.0/8/8', 'is not an IPv4'],
    ['10.0.0.0/abc', 'is not an IPv4'],
    ['10.0.0.9-10.0.0.1', 'is reversed: 10.0.0.9 comes after 10.0.0.1'],
    ['2001:db8::9-2001:db8::1', 'is reversed: 2001:db8::9 comes after 2001:db8::1'],
    ['10.0.0.1-2001:db8::1', 'mixes IPv4 and IPv6'],
    ['10.0.0.1-10.0.0.2-10.0.0.3', 'is not an IPv4'],
    ['10.0.0.1-', 'is not an IPv4'],
    ['host.example.com', 'is not an IPv4'],
  ])('refuses %j: %s', (text, problem) => {
    const parsed = parseRangeEntry(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toContain(problem);
  });
});

describe('parseNetworkRanges', () => {
  it('accepts 1..64 entries and normalises them in order, duplicates kept', () => {
    const parsed = parseNetworkRanges(['10.0.0.0/30', '2001:DB8::1', '10.0.0.0/30']);
    expect(parsed).toEqual({
      ok: true,
      value: {
        ranges: ['10.0.0.0/30', '2001:db8::1', '10.0.0.0/30'],
        intervals: [
          { family: 4, first: 0x0a000000n, last: 0x0a000003n },
          { family: 6, first: 0x20010db8000000000000000000000001n, last: 0x20010db8000000000000000000000001n },
        ],
        addressCount: 5,
      },
    });
    expect(parseNetworkRanges(Array.from({ length: 64 }, (_, i) => `10.0.${i}.1`)).ok).toBe(true);
  });

  it('refuses a missing, empty or too long list', () => {
    expect(problemsOf(parseNetworkRanges(undefined))).toEqual(['ranges must be an array of 1 to 64 entries']);
    expect(problemsOf(parseNetworkRanges('10.0.0.1'))).toEqual(['ranges must be an array of 1 to 64 entries']);
    expect(problemsOf(parseNetworkRanges([]))).toEqual(['ranges must hold at least one entry']);
    expect(problemsOf(parseNetworkRanges(Array.from({ length: 65 }, (_, i) => `10.0.${i}.1`)))).toEqual([
      'ranges holds 65 entries; at most 64 are allowed',
    ]);
  });

  it('reports every bad entry by index, not just the first', () => {
    expect(problemsOf(parseNetworkRanges(['10.0.0.1', 'nonsense', 42, '10.0.0.9-10.0.0.1', '10.0.0.0/40', '10.0.0.1-::1']))).toEqual([
      'ranges[1] "nonsense" is not an IPv4 or IPv6 address, a CIDR block (10.0.0.0/24, 2001:db8::/120) or a dash range (192.0.2.10-192.0.2.40)',
      'ranges[2] must be a string',
      'ranges[3] "10.0.0.9-10.0.0.1" is reversed: 10.0.0.9 comes after 10.0.0.1',
      'ranges[4] "10.0.0.0/40" has prefix /40, out of range for IPv4 (0 to 32)',
      'ranges[5] "10.0.0.1-::1" mixes IPv4 and IPv6: both ends of a range must be of one family',
    ]);
  });

  it('quotes long and odd entries safely', () => {
    const [problem] = problemsOf(parseNetworkRanges([`${'x'.repeat(200)}\n`]));
    expect(problem).toMatch(/^ranges\[0\] "x{57}\.\.\." is not/);
    expect(problemsOf(parseNetworkRanges(['a\nb']))[0]).toContain('"a\\nb"');
  });

  it('allows exactly 65,536 addresses and refuses one more', () => {
    expect(parseNetworkRanges(['10.0.0.0/16'])).toMatchObject({ ok: true, value: { addressCount: MAX_NETWORK_ADDRESSES } });
    expect(parseNetworkRanges(['2001:db8::/112'])).toMatchObject({ ok: true, value: { addressCount: 65_536 } });
    expect(problemsOf(parseNetworkRanges(['2001:db8::/111']))).toEqual([
      'ranges[0] "2001:db8::/111" covers 131,072 addresses; a network holds at most 65,536',
    ]);
    expect(problemsOf(parseNetworkRanges(['10.0.0.0/16', '10.1.0.0']))).toEqual([
      'ranges cover 65,537 distinct addresses in all; a network holds at most 65,536',
    ]);
    expect(problemsOf(parseNetworkRanges(['10.0.0.0-10.1.0.0']))).toEqual([
      'ranges[0] "10.0.0.0-10.1.0.0" covers 65,537 addresses; a network holds at most 65,536',
    ]);
  });

  it('refuses /0 of either family by the cap, counting without expanding', () => {
    const started = Date.now();
    expect(problemsOf(parseNetworkRanges(['0.0.0.0/0']))).toEqual([
      'ranges[0] "0.0.0.0/0" covers 4,294,967,296 addresses; a network holds at most 65,536',
    ]);
    expect(problemsOf(parseNetworkRanges(['::/0']))[0]).toBe(
      'ranges[0] "::/0" covers 340,282,366,920,938,463,463,374,607,431,768,211,456 addresses; a network holds at most 65,536',
    );
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('counts addresses shared by overlapping or repeated entries once', () => {
    // Two /17 halves plus the /16 that holds both, plus a range straddling them: 65,536 distinct.
    const parsed = parseNetworkRanges(['10.0.0.0/17', '10.0.128.0/17', '10.0.0.0/16', '10.0.127.250-10.0.128.5', '10.0.0.1']);
    expect(parsed).toMatchObject({
      ok: true,
      value: { addressCount: 65_536, intervals: [{ family: 4, first: 0x0a000000n, last: 0x0a00ffffn }] },
    });
    // Many small blocks each under the cap, together over it.
    const blocks = Array.from({ length: 17 }, (_, i) => `10.${i}.0.0/20`);
    expect(problemsOf(parseNetworkRanges(blocks))).toEqual([
      'ranges cover 69,632 distinct addresses in all; a network holds at most 65,536',
    ]);
  });

  it('merges adjacent entries and keeps the families apart', () => {
    const parsed = parseNetworkRanges(['10.0.0.4/30', '10.0.0.0/30', '::ffff:10.0.0.0/126']);
    expect(parsed).toMatchObject({
      ok: true,
      value: {
        addressCount: 12,
        intervals: [
          { family: 4, first: 0x0a000000n, last: 0x0a000007n },
          { family: 6, first: 0xffff0a000000n, last: 0xffff0a000003n },
        ],
      },
    });
  });
});

describe('parseNetworkPorts', () => {
  it('defaults to 443 and keeps the order given', () => {
    expect(parseNetworkPorts(undefined)).toEqual({ ok: true, value: [443] });
    expect(parseNetworkPorts([8443, 443, 1, 65535])).toEqual({ ok: true, value: [8443, 443, 1, 65535] });
    expect(parseNetworkPorts(Array.from({ length: 32 }, (_, i) => i + 1)).ok).toBe(true);
  });

  it('refuses bad lists and reports every bad port', () => {
    expect(problemsOf(parseNetworkPorts(null))).toEqual(['ports must be an array of 1 to 32 port numbers']);
    expect(problemsOf(parseNetworkPorts([]))).toEqual(['ports must hold at least one port']);
    expect(problemsOf(parseNetworkPorts(Array.from({ length: 33 }, (_, i) => i + 1)))).toEqual([
      'ports holds 33 entries; at most 32 are allowed',
    ]);
    expect(problemsOf(parseNetworkPorts([0, 443, 65536, 44.5, '80', 443]))).toEqual([
      'ports[0] must be an integer from 1 to 65535',
      'ports[2] must be an integer from 1 to 65535',
      'ports[3] must be an integer from 1 to 65535',
      'ports[4] must be an integer from 1 to 65535',
      'ports[5] repeats port 443; ports must be unique',
    ]);
  });
});

describe('parseNetworkScope', () => {
  it('reports the problems of both fields', () => {
    expect(problemsOf(parseNetworkScope({ ranges: ['x'], ports: [0] }))).toEqual([
      expect.stringMatching(/^ranges\[0\] "x"/),
      'ports[0] must be an integer from 1 to 65535',
    ]);
  });

  it('counts probes as addresses times ports', () => {
    expect(scopeOf(['10.0.0.0/24'], [443, 8443])).toMatchObject({ addressCount: 256, probeCount: 512, ports: [443, 8443] });
  });
});

describe('iteration and containment', () => {
  it('yields every distinct address once, ascending, IPv4 first', () => {
    const scope = scopeOf(['2001:db8::fffe/127', '10.0.0.2-10.0.0.3', '10.0.0.0/31', '10.0.0.1', '::ffff:10.0.0.1']);
    expect([...scopeAddresses(scope)]).toEqual([
      '10.0.0.0',
      '10.0.0.1',
      '10.0.0.2',
      '10.0.0.3',
      '::ffff:10.0.0.1',
      '2001:db8::fffe',
      '2001:db8::ffff',
    ]);
  });

  it('crosses octet and group boundaries', () => {
    expect([...scopeAddresses(scopeOf(['10.0.0.254-10.0.1.1']))]).toEqual(['10.0.0.254', '10.0.0.255', '10.0.1.0', '10.0.1.1']);
    expect([...scopeAddresses(scopeOf(['2001:db8::ffff-2001:db8::1:1']))]).toEqual(['2001:db8::ffff', '2001:db8::1:0', '2001:db8::1:1']);
    expect([...scopeAddresses(scopeOf(['255.255.255.254/31']))]).toEqual(['255.255.255.254', '255.255.255.255']);
  });

  it('is lazy: taking the first addresses of 65,536 builds nothing else', () => {
    const addresses = scopeAddresses(scopeOf(['2001:db8::/112']));
    expect(addresses.next().value).toBe('2001:db8::');
    expect(addresses.next().value).toBe('2001:db8::1');
    expect(typeof addresses[Symbol.iterator]).toBe('function');
  });

  it('yields 65,536 addresses for a /16, all distinct and contained', () => {
    const scope = scopeOf(['10.9.0.0/16']);
    let count = 0;
    let last = '';
    for (const address of scopeAddresses(scope)) {
      count += 1;
      last = address;
    }
    expect(count).toBe(65_536);
    expect(last).toBe('10.9.255.255');
  });

  it('yields each address with each port, address by address', () => {
    expect([...scopeProbeTargets(scopeOf(['10.0.0.1-10.0.0.2'], [443, 8443]))]).toEqual([
      { address: '10.0.0.1', port: 443 },
      { address: '10.0.0.1', port: 8443 },
      { address: '10.0.0.2', port: 443 },
      { address: '10.0.0.2', port: 8443 },
    ]);
  });

  it('contains exactly the addresses of the ranges, in any spelling, family-strict', () => {
    const scope = scopeOf(['10.0.0.0/30', '192.0.2.10-192.0.2.40', '2001:db8::/120']);
    for (const address of ['10.0.0.0', '10.0.0.3', '192.0.2.10', '192.0.2.40', '2001:db8::', '2001:DB8:0:0:0:0:0:ff', '[2001:db8::1]']) {
      expect([address, scopeContains(scope, address)]).toEqual([address, true]);
    }
    for (const address of ['10.0.0.4', '9.255.255.255', '192.0.2.9', '192.0.2.41', '2001:db8::100', '::ffff:10.0.0.1', 'localhost', '']) {
      expect([address, scopeContains(scope, address)]).toEqual([address, false]);
    }
  });
});
