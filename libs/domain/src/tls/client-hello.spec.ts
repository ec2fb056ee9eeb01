import { createECDH, createPublicKey, diffieHellman, generateKeyPairSync } from 'node:crypto';
import { parseClientHello } from '../../testing/parse-client-hello';
import { buildClientHello, sniHostName, TLS13_GROUPS } from './client-hello';
import { TLS_EMPTY_RENEGOTIATION_INFO_SCSV } from './cipher-suites';
import { EXTENSION_TYPES } from './extensions';
import { generateKeyShare, NAMED_GROUPS } from './key-share';

const SUITES = [0xc02f, 0xc030, 0x009c, 0x002f];
const parse = (bytes: Buffer) => {
  const hello = parseClientHello(bytes);
  if (hello === null) throw new Error('did not parse');
  return hello;
};
const types = (hello: ReturnType<typeof parse>) => hello.extensions.map((ext) => ext.type);

describe('buildClientHello', () => {
  it('writes one TLS record holding one ClientHello (TLS 1.2)', () => {
    const bytes = buildClientHello({ version: 'TLSv1.2', cipherSuites: SUITES, serverName: 'api.example.com' });
    expect(bytes[0]).toBe(22); // handshake record
    expect(bytes.readUInt16BE(3)).toBe(bytes.length - 5);
    expect(bytes[5]).toBe(1); // client_hello
    expect(bytes.readUIntBE(6, 3)).toBe(bytes.length - 9);
    const hello = parse(bytes);
    expect(hello.recordVersion).toBe(0x0301);
    expect(hello.legacyVersion).toBe(0x0303);
    expect(hello.random).toHaveLength(32);
    expect(hello.sessionId).toHaveLength(32);
    expect(hello.cipherSuites).toEqual(SUITES);
    expect(hello.compressionMethods).toEqual([0]);
    expect(hello.serverName).toBe('api.example.com');
    expect(types(hello)).toEqual(
      expect.arrayContaining([
        EXTENSION_TYPES.serverName,
        EXTENSION_TYPES.supportedGroups,
        EXTENSION_TYPES.ecPointFormats,
        EXTENSION_TYPES.signatureAlgorithms,
        EXTENSION_TYPES.renegotiationInfo,
      ]),
    );
    expect(types(hello)).not.toContain(EXTENSION_TYPES.supportedVersions);
    expect(types(hello)).not.toContain(EXTENSION_TYPES.keyShare);
    expect(hello.supportedGroups.slice(0, 2)).toEqual([NAMED_GROUPS.x25519, NAMED_GROUPS.secp256r1]);
    expect(hello.supportedGroups).not.toContain(NAMED_GROUPS.ffdhe2048);
    expect(hello.signatureAlgorithms).toEqual(expect.arrayContaining([0x0201, 0x0203, 0x0401, 0x0403, 0x0804]));
  });

  it('fills random and session id afresh every time', () => {
    const [a, b] = [1, 2].map(() => parse(buildClientHello({ version: 'TLSv1.2', cipherSuites: SUITES, serverName: '' })));
    expect(Buffer.from(a.random).equals(Buffer.from(b.random))).toBe(false);
    expect(Buffer.from(a.sessionId).equals(Buffer.from(b.sessionId))).toBe(false);
  });

  it('asks for TLS 1.0 and 1.1 in legacy_version and leaves signature_algorithms out (RFC 5246 7.4.1.4.1)', () => {
    for (const [version, code] of [
      ['TLSv1.0', 0x0301],
      ['TLSv1.1', 0x0302],
    ] as const) {
      const hello = parse(buildClientHello({ version, cipherSuites: SUITES, serverName: 'a.example' }));
      expect(hello.legacyVersion).toBe(code);
      expect(hello.recordVersion).toBe(0x0301);
      expect(types(hello)).not.toContain(EXTENSION_TYPES.signatureAlgorithms);
      expect(types(hello)).toContain(EXTENSION_TYPES.renegotiationInfo);
    }
  });

  it('sends SSL 3.0 hellos without extensions, signalling renegotiation with the SCSV', () => {
    const bytes = buildClientHello({ version: 'SSLv3', cipherSuites: SUITES, serverName: 'a.example' });
    const hello = parse(bytes);
    expect(hello.recordVersion).toBe(0x0300);
    expect(hello.legacyVersion).toBe(0x0300);
    expect(hello.extensions).toEqual([]);
    expect(hello.cipherSuites).toEqual([...SUITES, TLS_EMPTY_RENEGOTIATION_INFO_SCSV]);
  });

  it('builds TLS 1.3 hellos with supported_versions and a real X25519 share', () => {
    const hello = parse(buildClientHello({ version: 'TLSv1.3', cipherSuites: [0x1301, 0x1302], serverName: 'a.example' }));
    expect(hello.legacyVersion).toBe(0x0303);
    expect(hello.recordVersion).toBe(0x0301);
    expect(hello.supportedVersions).toEqual([0x0304]);
    expect(hello.supportedGroups).toEqual([...TLS13_GROUPS]);
    expect(hello.signatureAlgorithms).toEqual(expect.arrayContaining([0x0804, 0x0805, 0x0806, 0x0809, 0x0403]));
    expect(types(hello)).toContain(EXTENSION_TYPES.pskKeyExchangeModes);
    expect(hello.keyShares).toHaveLength(1);
    const [share] = hello.keyShares;
    expect(share.group).toBe(NAMED_GROUPS.x25519);
    expect(share.publicKey).toHaveLength(32);
    // Node takes it as an X25519 public key and derives a shared secret with it.
    const peer = createPublicKey({
      key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(share.publicKey).toString('base64url') },
      format: 'jwk',
    });
    const secret = diffieHellman({ privateKey: generateKeyPairSync('x25519').privateKey, publicKey: peer });
    expect(secret).toHaveLength(32);
  });

  it('carries the key share it is given (P-256 after a HelloRetryRequest)', () => {
    const share = generateKeyShare(NAMED_GROUPS.secp256r1)!;
    const hello = parse(buildClientHello({ version: 'TLSv1.3', cipherSuites: [0x1301], serverName: '', keyShare: share }));
    expect(hello.keyShares).toEqual([{ group: NAMED_GROUPS.secp256r1, publicKey: new Uint8Array(share.publicKey) }]);
    expect(share.publicKey).toHaveLength(65);
    expect(share.publicKey[0]).toBe(4); // uncompressed point, as TLS 1.3 requires
    // computeSecret throws for a point that is not on the curve.
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    expect(ecdh.computeSecret(share.publicKey)).toHaveLength(32);
  });

  it('generates shares only for groups it can', () => {
    expect(generateKeyShare(NAMED_GROUPS.x448)?.publicKey).toHaveLength(56);
    expect(generateKeyShare(NAMED_GROUPS.secp384r1)?.publicKey).toHaveLength(97);
    expect(generateKeyShare(NAMED_GROUPS.ffdhe2048)).toBeNull();
  });

  it('keeps the handshake message out of the 256-511 byte range that hangs some load balancers', () => {
    for (let count = 1; count < 200; count += 1) {
      const suites = Array.from({ length: count }, (_, i) => 0xc000 + i);
      const bytes = buildClientHello({ version: 'TLSv1.2', cipherSuites: suites, serverName: 'www.example.com' });
      const handshakeLength = bytes.length - 5;
      expect(handshakeLength < 256 || handshakeLength >= 512).toBe(true);
      expect(parse(bytes).cipherSuites).toEqual(suites);
    }
  });
});

describe('sniHostName', () => {
  it('sends host names, without a trailing dot', () => {
    expect(sniHostName('api.example.com')).toBe('api.example.com');
    expect(sniHostName('api.example.com.')).toBe('api.example.com');
  });

  it('sends no SNI for IP literals, empty or non-ASCII names', () => {
    expect(sniHostName('192.0.2.1')).toBeNull();
    expect(sniHostName('2001:db8::1')).toBeNull();
    expect(sniHostName('[2001:db8::1]')).toBeNull();
    expect(sniHostName('')).toBeNull();
    expect(sniHostName('bücher.example')).toBeNull();
    expect(parseClientHello(buildClientHello({ version: 'TLSv1.2', cipherSuites: SUITES, serverName: '10.0.0.1' }))?.serverName).toBeNull();
  });
});

describe('parseClientHello', () => {
  it('returns null for anything that is not one complete ClientHello', () => {
    const bytes = buildClientHello({ version: 'TLSv1.2', cipherSuites: SUITES, serverName: 'a.example' });
    expect(parseClientHello(bytes.subarray(0, bytes.length - 1))).toBeNull();
    expect(parseClientHello(Buffer.from('GET / HTTP/1.1\r\n\r\n'))).toBeNull();
    expect(parseClientHello(Buffer.alloc(0))).toBeNull();
  });
});
