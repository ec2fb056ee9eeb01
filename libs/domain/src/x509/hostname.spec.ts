import { certificateCoversHostname, dnsNamesOf, hostnameCoverCandidates } from './hostname';

describe('certificateCoversHostname', () => {
  const certificate = {
    sans: ['*.example.com', 'www.example.org', '10.0.0.1', '2001:db8::1', 'admin@example.com', 'https://example.net/path'],
    // Ignored: the certificate has DNS SANs.
    commonName: 'legacy.example.net',
  };

  it.each([
    ['api.example.com', true],
    ['API.Example.COM', true],
    ['api.example.com.', true],
    [' api.example.com ', true],
    ['example.com', false],
    ['a.b.example.com', false],
    ['.example.com', false],
    ['apiexample.com', false],
    ['www.example.org', true],
    ['WWW.EXAMPLE.ORG.', true],
    ['example.org', false],
    ['legacy.example.net', false],
    ['example.net', false],
    ['admin@example.com', false],
    ['', false],
  ])('DNS name %j: %s', (hostname, covered) => {
    expect(certificateCoversHostname(certificate, hostname)).toBe(covered);
  });

  it.each([
    ['10.0.0.1', true],
    ['10.0.0.2', false],
    ['2001:db8::1', true],
    ['2001:DB8:0:0:0:0:0:1', true],
    ['[2001:db8::1]', true],
    ['2001:db8::2', false],
    ['::ffff:10.0.0.1', false],
  ])('IP address %j: %s', (hostname, covered) => {
    expect(certificateCoversHostname(certificate, hostname)).toBe(covered);
  });

  it('never lets a wildcard stand for more than one label or for a whole top-level domain', () => {
    expect(certificateCoversHostname({ sans: ['*.com'], commonName: null }, 'example.com')).toBe(false);
    expect(certificateCoversHostname({ sans: ['*.example.com.'], commonName: null }, 'api.example.com')).toBe(true);
    expect(certificateCoversHostname({ sans: ['f*.example.com'], commonName: null }, 'foo.example.com')).toBe(false);
    expect(certificateCoversHostname({ sans: ['api.*.example.com'], commonName: null }, 'api.eu.example.com')).toBe(false);
  });

  describe('common name fallback', () => {
    it('uses the CN when there are no SANs', () => {
      expect(certificateCoversHostname({ sans: [], commonName: 'legacy.example.com' }, 'Legacy.Example.com.')).toBe(true);
      expect(certificateCoversHostname({ sans: [], commonName: '*.example.com' }, 'api.example.com')).toBe(true);
      expect(certificateCoversHostname({ sans: [], commonName: 'legacy.example.com' }, 'other.example.com')).toBe(false);
    });

    it('uses the CN when the SANs hold no DNS name', () => {
      const onlyAddresses = { sans: ['10.0.0.1', 'ops@example.com'], commonName: 'legacy.example.com' };
      expect(certificateCoversHostname(onlyAddresses, 'legacy.example.com')).toBe(true);
    });

    it('ignores the CN as soon as there is a DNS SAN', () => {
      expect(certificateCoversHostname({ sans: ['other.example.com'], commonName: 'legacy.example.com' }, 'legacy.example.com')).toBe(
        false,
      );
    });

    it('never matches IP addresses against the CN', () => {
      expect(certificateCoversHostname({ sans: [], commonName: '10.0.0.1' }, '10.0.0.1')).toBe(false);
    });

    it('covers nothing without SANs and CN', () => {
      expect(certificateCoversHostname({ sans: [], commonName: null }, 'example.com')).toBe(false);
    });
  });

  it('compares internationalised names in their ASCII form, as certificates carry them', () => {
    expect(certificateCoversHostname({ sans: ['xn--bcher-kva.example'], commonName: null }, 'bücher.example')).toBe(true);
    expect(certificateCoversHostname({ sans: ['*.xn--bcher-kva.example'], commonName: null }, 'shop.BÜCHER.example')).toBe(true);
  });
});

describe('dnsNamesOf', () => {
  it('keeps the DNS names only, lower case without a trailing dot, each once, sorted', () => {
    expect(
      dnsNamesOf([
        'WWW.Example.com.',
        '10.0.0.1',
        '2001:db8::1',
        'admin@example.com',
        'https://example.net/p',
        'www.example.com',
        '*.a.example',
      ]),
    ).toEqual(['*.a.example', 'www.example.com']);
  });
});

describe('hostnameCoverCandidates', () => {
  it('names the host and its parent’s one-label wildcard, lower case without a trailing dot', () => {
    expect(hostnameCoverCandidates('API.Example.com.')).toEqual(['api.example.com', '*.example.com']);
    expect(hostnameCoverCandidates('example.com')).toEqual(['example.com']);
  });

  it('names an IP literal as IP SANs are stored', () => {
    expect(hostnameCoverCandidates('2001:0db8:0:0:0:0:0:7')).toEqual(['2001:db8::7']);
    expect(hostnameCoverCandidates('[2001:DB8::7]')).toEqual(['2001:db8::7']);
    expect(hostnameCoverCandidates('10.0.0.1')).toEqual(['10.0.0.1']);
  });
});
