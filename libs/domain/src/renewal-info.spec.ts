import { directoryRenewalInfo, parseRenewalInfo, renewalCertId, renewalInfoUrl, retryAfterSeconds } from './renewal-info';

describe('renewalCertId', () => {
  it("is RFC 9773's example: the key identifier, a dot, and the serial with its leading zero octet", () => {
    expect(renewalCertId('69885b6b87464041e1b37b847ba0ae2cde01c8d4', '87654321')).toBe('aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE');
  });

  it('adds no zero octet to a serial whose first bit is clear', () => {
    expect(renewalCertId('0102', '7f01')).toBe('AQI.fwE');
  });

  it('reads an odd number of hex digits as whole octets', () => {
    expect(renewalCertId('0102', 'abc')).toBe(`AQI.${Buffer.from('0abc', 'hex').toString('base64url')}`);
  });
});

describe('renewalInfoUrl', () => {
  it('joins with one slash whether or not the directory gave one', () => {
    expect(renewalInfoUrl('https://ca.example/ari/', 'a.b')).toBe('https://ca.example/ari/a.b');
    expect(renewalInfoUrl('https://ca.example/ari', 'a.b')).toBe('https://ca.example/ari/a.b');
  });
});

describe('directoryRenewalInfo', () => {
  it('is the renewalInfo URL, or null for a CA without one or with one that is not http(s)', () => {
    expect(directoryRenewalInfo('{"newNonce":"https://ca/n","renewalInfo":"https://ca/ari"}')).toBe('https://ca/ari');
    expect(directoryRenewalInfo('{"newNonce":"https://ca/n"}')).toBeNull();
    expect(directoryRenewalInfo('{"renewalInfo":"file:///etc/passwd"}')).toBeNull();
    expect(directoryRenewalInfo('not json')).toBeNull();
    expect(directoryRenewalInfo('["https://ca/ari"]')).toBeNull();
  });
});

describe('parseRenewalInfo', () => {
  const window = { start: '2025-01-02T04:00:00Z', end: '2025-01-03T04:00:00Z' };

  it('reads the window and the explanation URL', () => {
    expect(parseRenewalInfo(JSON.stringify({ suggestedWindow: window, explanationURL: 'https://ca.example/why' }))).toEqual({
      start: new Date(window.start),
      end: new Date(window.end),
      explanationUrl: 'https://ca.example/why',
    });
  });

  it('keeps the window and drops an explanation URL that is not http(s)', () => {
    expect(parseRenewalInfo(JSON.stringify({ suggestedWindow: window, explanationURL: 'javascript:alert(1)' }))).toMatchObject({
      explanationUrl: null,
    });
  });

  it.each([
    ['not JSON', 'nope'],
    ['no window', '{}'],
    ['a date without a time', JSON.stringify({ suggestedWindow: { start: '2025-01-02', end: window.end } })],
    ['an end before the start', JSON.stringify({ suggestedWindow: { start: window.end, end: window.start } })],
    ['an end equal to the start', JSON.stringify({ suggestedWindow: { start: window.start, end: window.start } })],
  ])('says why %s is unusable', (_label, body) => {
    expect(parseRenewalInfo(body)).toEqual({ problem: expect.any(String) });
  });
});

describe('retryAfterSeconds', () => {
  const now = new Date('2025-01-01T00:00:00Z');
  it.each([
    [undefined, 6 * 3600],
    ['', 6 * 3600],
    ['soon', 6 * 3600],
    ['3600', 3600],
    ['1', 60],
    ['999999', 24 * 3600],
    ['Wed, 01 Jan 2025 02:00:00 GMT', 7200],
    ['Tue, 31 Dec 2024 00:00:00 GMT', 60],
  ])('Retry-After %j is %i seconds', (header, seconds) => {
    expect(retryAfterSeconds(header, now)).toBe(seconds);
  });
});
