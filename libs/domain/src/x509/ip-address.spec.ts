import { formatIpAddress, parseIpAddress } from './ip-address';

const octets = (...values: number[]) => Uint8Array.from(values);
const ipv6 = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

describe('formatIpAddress', () => {
  it.each([
    [octets(10, 0, 0, 1), '10.0.0.1'],
    [octets(255, 255, 255, 255), '255.255.255.255'],
    [ipv6('20010db8000000000000000000000001'), '2001:db8::1'],
    [ipv6('00000000000000000000000000000001'), '::1'],
    [ipv6('00000000000000000000000000000000'), '::'],
    [ipv6('fe800000000000000000000000000000'), 'fe80::'],
    // RFC 5952: the longest zero run is shortened, the first one on a tie, and a lone zero group never.
    [ipv6('20010db8000000010000000000000001'), '2001:db8:0:1::1'],
    [ipv6('20010db8000000000001000000000001'), '2001:db8::1:0:0:1'],
    [ipv6('20010db8000100010001000100010000'), '2001:db8:1:1:1:1:1:0'],
    [ipv6('20010DB8ABCD00000000000000000000'), '2001:db8:abcd::'],
  ])('formats %j as %s', (address, text) => {
    expect(formatIpAddress(address)).toBe(text);
  });

  it('refuses lengths that are not IPv4 or IPv6', () => {
    expect(formatIpAddress(octets(10, 0, 0))).toBeNull();
    expect(formatIpAddress(octets(10, 0, 0, 0, 255, 0, 0, 0))).toBeNull();
  });
});

describe('parseIpAddress', () => {
  it.each([
    ['10.0.0.1', octets(10, 0, 0, 1)],
    ['0.0.0.0', octets(0, 0, 0, 0)],
    ['2001:db8::1', ipv6('20010db8000000000000000000000001')],
    ['2001:DB8:0:0:0:0:0:1', ipv6('20010db8000000000000000000000001')],
    ['[2001:db8::1]', ipv6('20010db8000000000000000000000001')],
    ['::', ipv6('00000000000000000000000000000000')],
    ['::ffff:10.0.0.1', ipv6('00000000000000000000ffff0a000001')],
    ['1:2:3:4:5:6:7::', ipv6('00010002000300040005000600070000')],
  ])('reads %s', (text, address) => {
    expect(parseIpAddress(text)).toEqual(address);
  });

  it.each([
    '',
    'example.com',
    '10.0.0',
    '10.0.0.256',
    '010.0.0.1',
    '10.0.0.1.',
    '[10.0.0.1]',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    ':::',
    '12345::',
    'fe80::1%eth0',
    '10.0.0.1::',
    '::10.0.0.1:1',
    '::1:2:3:4:5:6:7:8',
  ])('refuses %j', (text) => {
    expect(parseIpAddress(text)).toBeNull();
  });
});
