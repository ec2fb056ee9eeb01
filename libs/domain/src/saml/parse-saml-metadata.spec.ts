import { createHash } from 'node:crypto';
import { generateKeyPair, mintCertificate, type MintedCertificate } from '../../testing/mint';
import { parseSamlMetadata } from './parse-saml-metadata';
import type { SamlMetadataParseResult } from './types';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const ARTIFACT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact';

let idpSigning: MintedCertificate;
let idpEncryption: MintedCertificate;
let idpBothUses: MintedCertificate;
let rolloverNext: MintedCertificate;
let spCertificate: MintedCertificate;

beforeAll(async () => {
  const keys = await generateKeyPair('ecdsa-p256');
  [idpSigning, idpEncryption, idpBothUses, rolloverNext, spCertificate] = await Promise.all(
    ['idp-signing', 'idp-encryption', 'idp-both', 'idp-next', 'sp'].map((name) =>
      mintCertificate({ keys, subject: `CN=${name}.example.org` }),
    ),
  );
});

/** Base64 DER wrapped at 64 characters and indented, as metadata signers write it. */
function base64Of(minted: MintedCertificate): string {
  return `\n${Buffer.from(minted.der).toString('base64').replace(/.{64}/g, '$&\n            ')}\n`;
}

function keyDescriptor(minted: MintedCertificate | string, use?: 'signing' | 'encryption'): string {
  const body = typeof minted === 'string' ? minted : base64Of(minted);
  return `<md:KeyDescriptor${use === undefined ? '' : ` use="${use}"`}>
      <ds:KeyInfo><ds:X509Data><ds:X509Certificate>${body}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>`;
}

function identityProvider(entityId: string, keyDescriptors: string, attributes = ''): string {
  return `<md:EntityDescriptor entityID="${entityId}"${attributes}>
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    ${keyDescriptors}
    <md:SingleLogoutService Binding="${REDIRECT}" Location="${entityId}/slo"/>
    <md:SingleSignOnService Binding="${REDIRECT}" Location="${entityId}/sso/redirect"/>
    <md:SingleSignOnService Binding="${POST}" Location="${entityId}/sso/post"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

function serviceProvider(entityId: string, keyDescriptors: string): string {
  return `<md:EntityDescriptor entityID="${entityId}">
  <md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    ${keyDescriptors}
    <md:AssertionConsumerService Binding="${POST}" Location="${entityId}/acs/post" index="0" isDefault="true"/>
    <md:AssertionConsumerService Binding="${ARTIFACT}" Location="${entityId}/acs/artifact" index="1"/>
  </md:SPSSODescriptor>
</md:EntityDescriptor>`;
}

/** Declares the md: and ds: prefixes on the first element of `xml`. */
function withNamespaces(xml: string): string {
  return xml.replace(/^<(md:Entit(?:y|ies)Descriptor)/, `<$1 xmlns:md="${MD}" xmlns:ds="${DS}"`);
}

const fingerprintsOf = (result: SamlMetadataParseResult) => result.certificates.map((entry) => entry.certificate.fingerprintSha256);
const fingerprint = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');
const codesOf = (result: SamlMetadataParseResult) => result.problems.map((problem) => problem.code);

describe('a single identity provider with md: prefixes', () => {
  const idpId = 'https://idp.example.org';
  let result: SamlMetadataParseResult;

  beforeAll(() => {
    const contacts = `
  <md:Organization><md:OrganizationName xml:lang="en">Example</md:OrganizationName></md:Organization>
  <md:ContactPerson contactType="technical">
    <md:Company>Example &amp; Co</md:Company>
    <md:GivenName>Ada</md:GivenName>
    <md:SurName>Lovelace</md:SurName>
    <md:EmailAddress>mailto:ada@example.org</md:EmailAddress>
    <md:EmailAddress>mailto:it@example.org</md:EmailAddress>
    <md:TelephoneNumber>+41 44 000 00 00</md:TelephoneNumber>
    <md:TelephoneNumber>+41 44 000 00 01</md:TelephoneNumber>
  </md:ContactPerson>
  <md:ContactPerson contactType="support">
    <md:EmailAddress>mailto:help@example.org</md:EmailAddress>
  </md:ContactPerson>`;
    const keys = [keyDescriptor(idpSigning, 'signing'), keyDescriptor(idpEncryption, 'encryption'), keyDescriptor(idpBothUses)].join('\n');
    const xml = identityProvider(idpId, keys, ' validUntil="2031-06-30T12:00:00Z"').replace(
      '</md:EntityDescriptor>',
      `${contacts}\n</md:EntityDescriptor>`,
    );
    result = parseSamlMetadata(`<?xml version="1.0" encoding="UTF-8"?>\n${withNamespaces(xml)}`);
  });

  it('reads the entity, its role, its validity and its endpoints', () => {
    expect(result.problems).toEqual([]);
    expect(result.entities).toHaveLength(1);
    expect(result.entities[0]).toMatchObject({
      entityId: idpId,
      roles: ['idp'],
      validUntil: '2031-06-30T12:00:00.000Z',
      singleSignOnServices: [
        { binding: REDIRECT, location: `${idpId}/sso/redirect` },
        { binding: POST, location: `${idpId}/sso/post` },
      ],
      singleLogoutServices: [{ binding: REDIRECT, location: `${idpId}/slo` }],
      assertionConsumerServices: [],
    });
  });

  it('reads every contact with all its addresses and numbers', () => {
    expect(result.entities[0].contacts).toEqual([
      {
        type: 'technical',
        company: 'Example & Co',
        givenName: 'Ada',
        surname: 'Lovelace',
        emailAddresses: ['mailto:ada@example.org', 'mailto:it@example.org'],
        telephoneNumbers: ['+41 44 000 00 00', '+41 44 000 00 01'],
      },
      { type: 'support', company: null, givenName: null, surname: null, emailAddresses: ['mailto:help@example.org'], telephoneNumbers: [] },
    ]);
  });

  it('lists each certificate with its uses; one without `use` serves both', () => {
    expect(result.certificates.map(({ entityId, uses, certificate }) => ({ entityId, uses, commonName: certificate.commonName }))).toEqual([
      { entityId: idpId, uses: ['signing'], commonName: 'idp-signing.example.org' },
      { entityId: idpId, uses: ['encryption'], commonName: 'idp-encryption.example.org' },
      { entityId: idpId, uses: ['signing', 'encryption'], commonName: 'idp-both.example.org' },
    ]);
    expect(result.certificates[0].certificate.fingerprintSha256).toBe(fingerprint(idpSigning));
  });
});

describe('service providers and aggregates', () => {
  it('reads assertion consumer services with their index and default flag', () => {
    const result = parseSamlMetadata(withNamespaces(serviceProvider('https://sp.example.org', keyDescriptor(spCertificate))));
    expect(result.problems).toEqual([]);
    expect(result.entities[0]).toMatchObject({ roles: ['sp'], singleSignOnServices: [], validUntil: null });
    expect(result.entities[0].assertionConsumerServices).toEqual([
      { binding: POST, location: 'https://sp.example.org/acs/post', index: 0, isDefault: true },
      { binding: ARTIFACT, location: 'https://sp.example.org/acs/artifact', index: 1, isDefault: false },
    ]);
    expect(result.certificates).toEqual([expect.objectContaining({ entityId: 'https://sp.example.org', uses: ['signing', 'encryption'] })]);
  });

  it('flattens a federation aggregate with a nested EntitiesDescriptor, in document order', () => {
    const aggregate = withNamespaces(`<md:EntitiesDescriptor Name="urn:example:federation" validUntil="2030-01-31T00:00:00Z">
  ${identityProvider('https://idp.one.example', keyDescriptor(idpSigning, 'signing'))}
  <md:EntitiesDescriptor Name="urn:example:federation:inner" validUntil="2030-01-15T00:00:00Z">
    ${serviceProvider('https://sp.two.example', keyDescriptor(spCertificate))}
  </md:EntitiesDescriptor>
  ${identityProvider('https://idp.three.example', keyDescriptor(idpBothUses, 'signing'), ' validUntil="2031-01-01T00:00:00Z"')}
</md:EntitiesDescriptor>`);
    const result = parseSamlMetadata(aggregate);
    expect(result.problems).toEqual([]);
    expect(result.entities.map((entity) => [entity.entityId, entity.roles, entity.validUntil])).toEqual([
      ['https://idp.one.example', ['idp'], '2030-01-31T00:00:00.000Z'],
      // The inner aggregate expires first; an entity's own later date cannot extend its aggregate's.
      ['https://sp.two.example', ['sp'], '2030-01-15T00:00:00.000Z'],
      ['https://idp.three.example', ['idp'], '2030-01-31T00:00:00.000Z'],
    ]);
    expect(result.certificates.map((entry) => [entry.entityId, entry.certificate.fingerprintSha256])).toEqual([
      ['https://idp.one.example', fingerprint(idpSigning)],
      ['https://sp.two.example', fingerprint(spCertificate)],
      ['https://idp.three.example', fingerprint(idpBothUses)],
    ]);
  });

  it('keeps the same certificate once per entity that declares it', () => {
    const aggregate = withNamespaces(`<md:EntitiesDescriptor>
  ${identityProvider('https://a.example', keyDescriptor(idpSigning, 'signing'))}
  ${identityProvider('https://b.example', keyDescriptor(idpSigning, 'signing'))}
</md:EntitiesDescriptor>`);
    expect(parseSamlMetadata(aggregate).certificates.map((entry) => entry.entityId)).toEqual(['https://a.example', 'https://b.example']);
  });

  it('lists both signing certificates during a key rollover', () => {
    const keys = [keyDescriptor(idpSigning, 'signing'), keyDescriptor(rolloverNext, 'signing'), keyDescriptor(idpEncryption, 'encryption')];
    const result = parseSamlMetadata(withNamespaces(identityProvider('https://idp.example.org', keys.join('\n'))));
    const signing = result.certificates.filter((entry) => entry.uses.includes('signing'));
    expect(signing.map((entry) => entry.certificate.fingerprintSha256)).toEqual([fingerprint(idpSigning), fingerprint(rolloverNext)]);
  });

  it('merges the uses of a certificate declared twice into one entry', () => {
    const keys = [keyDescriptor(idpSigning, 'encryption'), keyDescriptor(idpSigning, 'signing')].join('\n');
    const result = parseSamlMetadata(withNamespaces(identityProvider('https://idp.example.org', keys)));
    expect(result.certificates).toHaveLength(1);
    expect(result.certificates[0].uses).toEqual(['signing', 'encryption']);
  });

  it('reads the logout endpoints of both roles of an entity once each', () => {
    const xml = withNamespaces(`<md:EntityDescriptor entityID="https://both.example">
  <md:IDPSSODescriptor><md:SingleLogoutService Binding="${REDIRECT}" Location="https://both.example/slo"/></md:IDPSSODescriptor>
  <md:SPSSODescriptor><md:SingleLogoutService Binding="${REDIRECT}" Location="https://both.example/slo"/>
    <md:SingleLogoutService Binding="${POST}" Location="https://both.example/slo"/></md:SPSSODescriptor>
</md:EntityDescriptor>`);
    const [entity] = parseSamlMetadata(xml).entities;
    expect(entity.roles).toEqual(['idp', 'sp']);
    expect(entity.singleLogoutServices).toEqual([
      { binding: REDIRECT, location: 'https://both.example/slo' },
      { binding: POST, location: 'https://both.example/slo' },
    ]);
  });
});

describe('namespaces', () => {
  it('reads a document in the default namespace, without prefixes', () => {
    const xml = `<EntityDescriptor xmlns="${MD}" entityID="https://idp.example.org">
  <IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <KeyDescriptor use="signing">
      <KeyInfo xmlns="${DS}"><X509Data><X509Certificate>${base64Of(idpSigning)}</X509Certificate></X509Data></KeyInfo>
    </KeyDescriptor>
    <SingleSignOnService Binding="${REDIRECT}" Location="https://idp.example.org/sso"/>
  </IDPSSODescriptor>
</EntityDescriptor>`;
    const result = parseSamlMetadata(xml);
    expect(result.problems).toEqual([]);
    expect(result.entities[0].singleSignOnServices).toEqual([{ binding: REDIRECT, location: 'https://idp.example.org/sso' }]);
    expect(fingerprintsOf(result)).toEqual([fingerprint(idpSigning)]);
  });

  it('reads any prefix bound to the metadata namespaces', () => {
    const xml = identityProvider('https://idp.example.org', keyDescriptor(idpSigning, 'signing'))
      .replaceAll('md:', 'saml2md:')
      .replaceAll('ds:', 'dsig:')
      .replace('<saml2md:EntityDescriptor', `<saml2md:EntityDescriptor xmlns:saml2md="${MD}" xmlns:dsig="${DS}"`);
    expect(fingerprintsOf(parseSamlMetadata(xml))).toEqual([fingerprint(idpSigning)]);
  });

  it('ignores elements of the same name in another namespace', () => {
    const xml = withNamespaces(identityProvider('https://idp.example.org', '')).replace(
      '</md:IDPSSODescriptor>',
      `<x:SingleSignOnService xmlns:x="urn:example:other" Binding="${POST}" Location="https://elsewhere.example"/></md:IDPSSODescriptor>`,
    );
    expect(parseSamlMetadata(xml).entities[0].singleSignOnServices.map((endpoint) => endpoint.location)).not.toContain(
      'https://elsewhere.example',
    );
  });

  it('decodes character references in attributes and text', () => {
    const xml = withNamespaces(identityProvider('https://idp.example.org', '')).replace('/sso/post"', '/sso?a=1&amp;b=&#x32;"');
    expect(parseSamlMetadata(xml).entities[0].singleSignOnServices[1].location).toBe('https://idp.example.org/sso?a=1&b=2');
  });
});

describe('hostile and broken documents', () => {
  const xxe = `<?xml version="1.0"?>
<!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<md:EntityDescriptor xmlns:md="${MD}" entityID="&xxe;"><md:IDPSSODescriptor/></md:EntityDescriptor>`;
  const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 ${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('\n ')}
]>
<md:EntityDescriptor xmlns:md="${MD}" entityID="https://evil.example"><md:Extensions>&lol9;</md:Extensions></md:EntityDescriptor>`;

  it.each([
    ['an external entity (XXE)', xxe],
    ['entity expansion (billion laughs)', billionLaughs],
    ['a lower-case doctype', `<!doctype html><md:EntityDescriptor xmlns:md="${MD}" entityID="x"/>`],
    ['a bare ENTITY declaration', `<md:EntityDescriptor xmlns:md="${MD}" entityID="x"><!ENTITY a "b"></md:EntityDescriptor>`],
  ])('refuses %s without reading any entity', (_name, document) => {
    const started = process.hrtime.bigint();
    const result = parseSamlMetadata(document);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
    expect(result.entities).toEqual([]);
    expect(result.certificates).toEqual([]);
    expect(codesOf(result)).toEqual(['doctype_refused']);
  });

  it.each([
    ['prose', 'this is not a metadata document'],
    ['an empty document', ''],
    ['JSON', '{"entityID": "https://idp.example.org"}'],
    ['an unclosed element', `<md:EntityDescriptor xmlns:md="${MD}" entityID="x">`],
    ['mismatched tags', `<md:EntityDescriptor xmlns:md="${MD}" entityID="x"></md:EntitiesDescriptor>`],
    ['two root elements', `<md:EntityDescriptor xmlns:md="${MD}" entityID="a"/><md:EntityDescriptor xmlns:md="${MD}" entityID="b"/>`],
    ['binary bytes', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff])],
  ])('reports %s as not XML', (_name, document) => {
    const result = parseSamlMetadata(document);
    expect(codesOf(result)).toEqual(['not_xml']);
    expect(result.entities).toEqual([]);
  });

  it.each([
    ['an HTML page', '<html><head><title>Login</title></head><body><p>Hello</p></body></html>'],
    ['a SAML assertion', '<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="a"/>'],
    ['an EntityDescriptor in another namespace', '<EntityDescriptor xmlns="urn:example:not-saml" entityID="x"/>'],
  ])('reports %s as not metadata', (_name, document) => {
    const result = parseSamlMetadata(document);
    expect(codesOf(result)).toEqual(['not_metadata']);
    expect(result.entities).toEqual([]);
  });

  it('reports a corrupted certificate and still returns the good ones', () => {
    const corrupted = base64Of(idpEncryption).replace(/[A-Za-z0-9+/]{40}\n/, '\n');
    const keys = [keyDescriptor(idpSigning, 'signing'), keyDescriptor(corrupted, 'encryption'), keyDescriptor(rolloverNext, 'signing')];
    const result = parseSamlMetadata(withNamespaces(identityProvider('https://idp.example.org', keys.join('\n'))));
    expect(fingerprintsOf(result)).toEqual([fingerprint(idpSigning), fingerprint(rolloverNext)]);
    expect(result.problems).toEqual([
      {
        code: 'bad_certificate',
        entityId: 'https://idp.example.org',
        message: expect.stringContaining('encryption certificate of https://idp.example.org'),
      },
    ]);
    expect(result.entities).toHaveLength(1);
  });

  it('reports an empty X509Certificate element as a bad certificate', () => {
    const result = parseSamlMetadata(withNamespaces(identityProvider('https://idp.example.org', keyDescriptor('  ', 'signing'))));
    expect(codesOf(result)).toEqual(['bad_certificate']);
  });

  it('skips an EntityDescriptor without entityID and keeps the others', () => {
    const aggregate = withNamespaces(`<md:EntitiesDescriptor>
  ${identityProvider('https://idp.one.example', '')}
  ${identityProvider('https://idp.two.example', keyDescriptor(idpSigning)).replace(' entityID="https://idp.two.example"', '')}
  ${identityProvider('https://idp.three.example', '')}
</md:EntitiesDescriptor>`);
    const result = parseSamlMetadata(aggregate);
    expect(result.entities.map((entity) => entity.entityId)).toEqual(['https://idp.one.example', 'https://idp.three.example']);
    expect(result.problems).toEqual([{ code: 'entity_without_id', message: expect.stringContaining('number 2') }]);
    expect(result.certificates).toEqual([]);
  });
});

describe('size, encoding and digest', () => {
  const document = () => withNamespaces(identityProvider('https://idp.example.org', keyDescriptor(idpSigning, 'signing')));

  it('refuses a document over maxBytes before parsing it', () => {
    const text = document();
    const bytes = Buffer.byteLength(text);
    for (const input of [text, new TextEncoder().encode(text)]) {
      const result = parseSamlMetadata(input, { maxBytes: bytes - 1 });
      expect(codesOf(result)).toEqual(['too_large']);
      expect(result.entities).toEqual([]);
    }
    expect(parseSamlMetadata(text, { maxBytes: bytes }).problems).toEqual([]);
  });

  it('applies a 16 MiB limit by default', () => {
    const padding = `<!-- ${'x'.repeat(16 * 1024 * 1024)} -->`;
    expect(codesOf(parseSamlMetadata(document().replace('<md:IDPSSODescriptor', `${padding}<md:IDPSSODescriptor`)))).toEqual(['too_large']);
  });

  it('refuses a document declaring more than maxCertificates certificates, repeats and every entity counted', () => {
    const text = withNamespaces(
      `<md:EntitiesDescriptor>${identityProvider('https://a.example.org', keyDescriptor(idpSigning, 'signing') + keyDescriptor(idpSigning))}${serviceProvider('https://b.example.org', keyDescriptor(spCertificate))}</md:EntitiesDescriptor>`,
    );
    const refused = parseSamlMetadata(text, { maxCertificates: 2 });
    expect(refused.problems).toEqual([
      { code: 'too_many_certificates', message: 'The document declares 3 certificates; at most 2 are accepted.' },
    ]);
    expect(refused.entities).toEqual([]);
    expect(refused.certificates).toEqual([]);
    expect(parseSamlMetadata(text, { maxCertificates: 3 }).certificates).toHaveLength(2);
  });

  it('refuses more than 10,000 certificates by default', () => {
    const keys = keyDescriptor(Buffer.from(idpSigning.der).toString('base64')).repeat(10_001);
    expect(parseSamlMetadata(withNamespaces(identityProvider('https://idp.example.org', keys))).problems).toEqual([
      { code: 'too_many_certificates', message: 'The document declares 10001 certificates; at most 10000 are accepted.' },
    ]);
  });

  it('digests the bytes as given, and a string as UTF-8', () => {
    const text = document().replace('https://idp.example.org/slo', 'https://idp.example.org/slo-ä');
    const bytes = new TextEncoder().encode(text);
    const expected = createHash('sha256').update(bytes).digest('hex');
    expect(parseSamlMetadata(text).digest).toBe(expected);
    expect(parseSamlMetadata(bytes).digest).toBe(expected);
    expect(parseSamlMetadata('not xml').digest).toBe(createHash('sha256').update('not xml').digest('hex'));
  });

  it('reads bytes with a UTF-8 or UTF-16 byte order mark', () => {
    const text = document();
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    for (const bytes of [utf8, utf16]) expect(fingerprintsOf(parseSamlMetadata(bytes))).toEqual([fingerprint(idpSigning)]);
  });

  it('reads a validUntil without time zone as UTC and keeps an unreadable one as given', () => {
    const withValidUntil = (value: string) =>
      parseSamlMetadata(withNamespaces(identityProvider('https://idp.example.org', '', ` validUntil="${value}"`))).entities[0].validUntil;
    expect(withValidUntil('2030-05-01T10:00:00')).toBe('2030-05-01T10:00:00.000Z');
    expect(withValidUntil('2030-05-01T12:00:00.123456+02:00')).toBe('2030-05-01T10:00:00.123Z');
    expect(withValidUntil('next Tuesday')).toBe('next Tuesday');
  });

  it('never throws, even for input its types do not allow', () => {
    for (const input of [null, undefined, 42, {}] as unknown as string[]) {
      expect(codesOf(parseSamlMetadata(input))).toEqual(['not_xml']);
    }
  });
});
