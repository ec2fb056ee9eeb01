// Jest's functions imported, not global: the web's tsconfig (which type-checks these specs) loads no test types.
import { describe, expect, it } from '@jest/globals';
import {
  cron,
  dnsName,
  email,
  httpUrl,
  integerFrom,
  ipAddress,
  isIpAddress,
  maxLength,
  pem,
  port,
  required,
  tags,
  thresholdDays,
  withinSize,
} from './field-checks';

describe('field checks', () => {
  it('required: blank or spaces only is missing', () => {
    expect(required('  ', 'a name')).toBe('Enter a name.');
    expect(required('x', 'a name')).toBeNull();
  });

  it('maxLength counts the trimmed value', () => {
    expect(maxLength('a'.repeat(201), 200, 'the name')).toBe('The name is 201 characters long: at most 200.');
    expect(maxLength(` ${'a'.repeat(200)} `, 200, 'the name')).toBeNull();
  });

  it('port: a whole number from 1 to 65535, empty left to required', () => {
    for (const bad of ['0', '65536', '-1', '44.3', 'https', '1e3']) expect(port(bad)).toBe('The port is a whole number from 1 to 65535.');
    for (const good of ['1', '443', '65535', ' 8443 ', '']) expect(port(good)).toBeNull();
    expect(integerFrom('257', 1, 256, 'the concurrency')).toBe('The concurrency is a whole number from 1 to 256.');
  });

  it('IP addresses: IPv4, IPv6 with :: and an IPv4 tail', () => {
    for (const good of ['192.0.2.10', '0.0.0.0', '2001:db8::10', '::1', '::', 'fe80:0:0:0:0:0:0:1', '::ffff:192.0.2.1'])
      expect(isIpAddress(good)).toBe(true);
    for (const bad of ['256.1.1.1', '192.0.2', '1:2:3:4:5:6:7:8:9', '2001:db8:::1', 'g::1', '::ffff:300.0.0.1', 'example.com'])
      expect(isIpAddress(bad)).toBe(false);
    expect(ipAddress('10.0.0.300')).toMatch(/^“10\.0\.0\.300” is not an IP address/);
    expect(ipAddress('')).toBeNull();
  });

  it('DNS name: labels as the API reads them, an IP literal, no scheme, port or path', () => {
    for (const good of [
      'www.example.com',
      'localhost',
      'example.com.',
      '_dmarc.example.com',
      'xn--bcher-kva.example',
      '192.0.2.1',
      '2001:db8::1',
    ])
      expect(dnsName(good)).toBeNull();
    expect(dnsName('https://www.example.com/')).toBe('Enter the host name alone, without “https://”.');
    expect(dnsName('www.example.com:8443')).toMatch(/^Enter the host name alone: the port has its own field/);
    for (const bad of ['-bad.example.com', 'two words', 'a..b', `${'a'.repeat(64)}.com`])
      expect(dnsName(bad)).toMatch(/is not a host name/);
  });

  it('httpUrl: http or https only', () => {
    expect(httpUrl('https://idp.example.com/metadata')).toBeNull();
    expect(httpUrl('idp.example.com/metadata')).toMatch(/is not a web address/);
    expect(httpUrl('ftp://idp.example.com/metadata')).toBe('The address starts with https:// or http://, not ftp://.');
  });

  it('email: local part, @ and a domain (localhost included)', () => {
    for (const good of ['ops@example.com', 'admin@localhost', '']) expect(email(good)).toBeNull();
    for (const bad of ['ops', 'ops@', '@example.com', 'ops@example..com', 'o ps@example.com'])
      expect(email(bad)).toMatch(/is not an e-mail address/);
  });

  it('cron: five fields of cron characters', () => {
    for (const good of ['0 * * * *', '*/15 2-4 1,15 JAN-MAR MON-FRI', '']) expect(cron(good)).toBeNull();
    for (const bad of ['every hour', '0 * * *', '0 * * * * *', '0 * * * $']) expect(cron(bad)).toMatch(/^A schedule is 5 fields/);
  });

  it('thresholdDays: 1 to 20 whole numbers of days from 1 to 3650', () => {
    expect(thresholdDays('30, 14 7;1')).toBeNull();
    expect(thresholdDays(' , ')).toBe('Enter at least one number of days, such as 30, 14, 7.');
    expect(thresholdDays('30, 0')).toBe('“0” is not a number of days: each is a whole number from 1 to 3650.');
    expect(thresholdDays('soon')).toBe('“soon” is not a number of days: each is a whole number from 1 to 3650.');
    expect(thresholdDays('3651')).toMatch(/^“3651” is not a number of days/);
    expect(thresholdDays(Array.from({ length: 21 }, (_, i) => i + 1).join(','))).toBe('21 thresholds: at most 20.');
    // Repeats are left to the API, which names them.
    expect(thresholdDays('7, 7')).toBeNull();
  });

  it('tags: at most 100 characters each, nothing invisible', () => {
    expect(tags(['env:prod', 'team', ':odd but allowed'])).toBeNull();
    expect(tags(['env:prod', 'x'.repeat(101)])).toMatch(/is 101 characters long: at most 100\.$/);
    // Counted in characters, not UTF-16 units: 100 emoji are fine.
    expect(tags(['🔒'.repeat(100)])).toBeNull();
    expect(tags(['env:\tprod'])).toMatch(/holds a tab, line break or other invisible character/);
    expect(tags(['zero\u200bwidth'])).toMatch(/invisible character/);
  });

  it('pem: armour with a certificate, each BEGIN ended', () => {
    const body = 'MIIB\n';
    expect(pem(`-----BEGIN CERTIFICATE-----\n${body}-----END CERTIFICATE-----\n`)).toBeNull();
    expect(pem('  ')).toBe('Paste a certificate in PEM form, or pick a file.');
    expect(pem('not a certificate')).toMatch(/^This is not PEM/);
    expect(pem(`-----BEGIN CERTIFICATE-----\n${body}`)).toMatch(/^The PEM is cut short/);
    expect(pem(`-----BEGIN PRIVATE KEY-----\n${body}-----END PRIVATE KEY-----`)).toMatch(/holds no certificate/);
  });

  it('withinSize: up to the limit passes, above it names the file and both sizes', () => {
    const mib = 1024 * 1024;
    expect(withinSize('chain.pem', 10 * mib, 10)).toBeNull();
    expect(withinSize('chain.pem', 10 * mib + 1, 10)).toBe('chain.pem is 10.0 MiB: at most 10 MiB can be uploaded here.');
    expect(withinSize('bundle.p7b', 12.5 * mib, 10)).toBe('bundle.p7b is 12.5 MiB: at most 10 MiB can be uploaded here.');
  });
});
