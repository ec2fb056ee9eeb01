import { buildEndpointRecord } from './endpoint-record';
import type { EndpointRecord } from './endpoints.repository';

const DEFAULT_SCANNER = '11111111-1111-4111-8111-111111111111';
const OTHER_SCANNER = '22222222-2222-4222-8222-222222222222';

const ok = (result: ReturnType<typeof buildEndpointRecord>): EndpointRecord => {
  if ('error' in result) throw new Error(result.error);
  return result.record;
};

describe('buildEndpointRecord', () => {
  it('creates a host with defaults, the default scanner and a normalised name', () => {
    expect(ok(buildEndpointRecord({ name: 'Web', dnsName: 'WWW.Example.COM.' }, 'create', null, DEFAULT_SCANNER))).toEqual({
      name: 'Web',
      type: 'host',
      enabled: true,
      scanExempt: false,
      scannerId: DEFAULT_SCANNER,
      notes: '',
      tags: [],
      dnsName: 'www.example.com',
      port: 443,
      ipAddress: null,
      starttls: null,
      metadataUrl: null,
      ignoredFindings: [],
    });
  });

  describe('starttls (docs/api-contract.md section 13)', () => {
    const host = ok(buildEndpointRecord({ name: 'Mail', dnsName: 'mx.a.com', port: 25, starttls: 'smtp' }, 'create', null, null));

    it('keeps it on a host, through a PATCH that does not name it, and drops it on a PUT that does not', () => {
      expect(host.starttls).toBe('smtp');
      expect(ok(buildEndpointRecord({ notes: 'x' }, 'patch', host, null)).starttls).toBe('smtp');
      expect(ok(buildEndpointRecord({ starttls: 'imap' }, 'patch', host, null)).starttls).toBe('imap');
      expect(ok(buildEndpointRecord({ starttls: null }, 'patch', host, null)).starttls).toBeNull();
      expect(ok(buildEndpointRecord({ name: 'Mail', dnsName: 'mx.a.com' }, 'replace', host, null)).starttls).toBeNull();
    });

    it('ignores a protocol on saml and manual endpoints, which store null, as for dnsName', () => {
      const saml = ok(
        buildEndpointRecord({ name: 's', type: 'saml', metadataUrl: 'https://idp/md', starttls: 'ldap' }, 'create', null, null),
      );
      expect(saml.starttls).toBeNull();
      expect(ok(buildEndpointRecord({ starttls: 'smtp' }, 'patch', saml, null)).starttls).toBeNull();
      expect(ok(buildEndpointRecord({ name: 'm', type: 'manual', starttls: 'xmpp' }, 'create', null, null)).starttls).toBeNull();
      expect(ok(buildEndpointRecord({ name: 'm', type: 'manual', starttls: null }, 'create', null, null)).starttls).toBeNull();
    });
  });

  it('ignores fields that do not apply to the type', () => {
    const saml = ok(
      buildEndpointRecord(
        { name: 'IdP', type: 'saml', metadataUrl: 'https://idp/md', dnsName: 'x.com', port: 8443 },
        'create',
        null,
        DEFAULT_SCANNER,
      ),
    );
    expect(saml).toMatchObject({ dnsName: null, port: null, ipAddress: null, metadataUrl: 'https://idp/md', scannerId: DEFAULT_SCANNER });
    const manual = ok(
      buildEndpointRecord({ name: 'Upload', type: 'manual', scannerId: OTHER_SCANNER, dnsName: 'x.com' }, 'create', null, DEFAULT_SCANNER),
    );
    expect(manual).toMatchObject({ scannerId: null, dnsName: null, port: null });
  });

  it('requires the fields each type needs', () => {
    expect(buildEndpointRecord({ name: 'h' }, 'create', null, DEFAULT_SCANNER)).toEqual({
      error: 'dnsName is required for host endpoints',
    });
    expect(buildEndpointRecord({ name: 's', type: 'saml' }, 'create', null, DEFAULT_SCANNER)).toEqual({
      error: 'metadataUrl is required for saml endpoints',
    });
    expect(buildEndpointRecord({ type: 'manual' }, 'create', null, DEFAULT_SCANNER)).toEqual({ error: 'name is required' });
  });

  describe('on an existing endpoint', () => {
    const existing = ok(
      buildEndpointRecord(
        { name: 'Web', dnsName: 'a.com', port: 8443, tags: ['env:prod'], notes: 'n', scannerId: OTHER_SCANNER },
        'create',
        null,
        DEFAULT_SCANNER,
      ),
    );

    it('PATCH changes only what it names', () => {
      expect(ok(buildEndpointRecord({ enabled: false }, 'patch', existing, DEFAULT_SCANNER))).toEqual({ ...existing, enabled: false });
    });

    it('PUT returns omitted fields to their defaults', () => {
      expect(ok(buildEndpointRecord({ name: 'Web', dnsName: 'a.com' }, 'replace', existing, DEFAULT_SCANNER))).toEqual({
        ...existing,
        port: 443,
        tags: [],
        notes: '',
        scannerId: DEFAULT_SCANNER,
      });
    });

    it('refuses to change the type', () => {
      expect(buildEndpointRecord({ type: 'saml' }, 'patch', existing, DEFAULT_SCANNER)).toEqual({
        error: 'type cannot change (this endpoint is host)',
      });
    });

    it('returns to the default scanner when scannerId is set to null', () => {
      expect(ok(buildEndpointRecord({ scannerId: null }, 'patch', existing, DEFAULT_SCANNER)).scannerId).toBe(DEFAULT_SCANNER);
    });
  });

  it('de-duplicates tags', () => {
    expect(ok(buildEndpointRecord({ name: 'm', type: 'manual', tags: ['a', 'b', 'a'] }, 'create', null, null)).tags).toEqual(['a', 'b']);
  });
});
