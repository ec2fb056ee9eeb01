import { HELLO_RETRY_REQUEST_RANDOM, parseServerResponse } from './server-response';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const RANDOM = '11'.repeat(32);

// A TLS 1.2 ServerHello as OpenSSL sends it: TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, no session
// id, renegotiation_info and extended_master_secret.
const TLS12_SERVER_HELLO = hex(`
  16 0303 0035
  02 000031
  0303 ${RANDOM} 00 c02f 00
  0009 ff01 0001 00 0017 0000`);

// A TLS 1.3 ServerHello: legacy_version 1.2, supported_versions 1.3, an X25519 key share.
const TLS13_SERVER_HELLO = hex(`
  16 0303 005a
  02 000056
  0303 ${RANDOM} 00 1302 00
  002e 002b 0002 0304 0033 0024 001d 0020 ${'22'.repeat(32)}`);

// A HelloRetryRequest asking for secp256r1, with TLS_AES_128_GCM_SHA256.
const HELLO_RETRY_REQUEST = hex(`
  16 0303 0038
  02 000034
  0303 ${Buffer.from(HELLO_RETRY_REQUEST_RANDOM).toString('hex')} 00 1301 00
  000c 002b 0002 0304 0033 0002 0017`);

const CERTIFICATE_RECORD = hex('16 0303 0008 0b 000004 000000 00');

describe('parseServerResponse', () => {
  it('reads a TLS 1.2 ServerHello', () => {
    expect(parseServerResponse(TLS12_SERVER_HELLO)).toEqual({
      kind: 'server-hello',
      hello: {
        version: 'TLSv1.2',
        versionCode: 0x0303,
        cipherSuite: 0xc02f,
        compressionMethod: 0,
        helloRetryRequest: false,
        keyShareGroup: null,
        extensionTypes: [0xff01, 0x0017],
      },
    });
  });

  it('takes the version of a TLS 1.3 ServerHello from supported_versions', () => {
    const answer = parseServerResponse(TLS13_SERVER_HELLO);
    expect(answer).toMatchObject({ kind: 'server-hello', hello: { version: 'TLSv1.3', cipherSuite: 0x1302, keyShareGroup: 0x001d } });
    expect(answer).toMatchObject({ hello: { helloRetryRequest: false } });
  });

  it('recognises a HelloRetryRequest by its random and reads the group it wants', () => {
    expect(parseServerResponse(HELLO_RETRY_REQUEST)).toMatchObject({
      kind: 'server-hello',
      hello: { version: 'TLSv1.3', cipherSuite: 0x1301, helloRetryRequest: true, keyShareGroup: 0x0017 },
    });
  });

  it('reads the older versions from legacy_version, and names none it does not know', () => {
    const withVersion = (version: string) => {
      const bytes = Buffer.from(TLS12_SERVER_HELLO);
      hex(version).copy(bytes, 9);
      return parseServerResponse(bytes);
    };
    expect(withVersion('0300')).toMatchObject({ hello: { version: 'SSLv3' } });
    expect(withVersion('0301')).toMatchObject({ hello: { version: 'TLSv1.0' } });
    expect(withVersion('0302')).toMatchObject({ hello: { version: 'TLSv1.1' } });
    expect(withVersion('7f1c')).toMatchObject({ hello: { version: null, versionCode: 0x7f1c } });
  });

  it('says "incomplete" for every prefix, so the caller reads on', () => {
    for (let length = 0; length < TLS12_SERVER_HELLO.length; length += 1) {
      expect(parseServerResponse(TLS12_SERVER_HELLO.subarray(0, length))).toEqual({ kind: 'incomplete' });
    }
  });

  it('ignores what follows the ServerHello (Certificate and the rest)', () => {
    expect(parseServerResponse(Buffer.concat([TLS12_SERVER_HELLO, CERTIFICATE_RECORD]))).toMatchObject({ kind: 'server-hello' });
  });

  it('joins a ServerHello split over several records', () => {
    const message = TLS12_SERVER_HELLO.subarray(5);
    const record = (part: Buffer) => Buffer.concat([hex('16 0303'), Buffer.from([part.length >> 8, part.length & 0xff]), part]);
    const split = Buffer.concat([record(message.subarray(0, 3)), record(message.subarray(3, 20)), record(message.subarray(20))]);
    expect(parseServerResponse(split)).toMatchObject({ kind: 'server-hello', hello: { cipherSuite: 0xc02f } });
    expect(parseServerResponse(split.subarray(0, split.length - 1))).toEqual({ kind: 'incomplete' });
  });

  it('skips a change_cipher_spec record before the answer', () => {
    expect(parseServerResponse(Buffer.concat([hex('14 0303 0001 01'), TLS13_SERVER_HELLO]))).toMatchObject({ kind: 'server-hello' });
  });

  it('reads alerts', () => {
    expect(parseServerResponse(hex('15 0303 0002 02 28'))).toEqual({ kind: 'alert', level: 2, description: 40, name: 'handshake_failure' });
    expect(parseServerResponse(hex('15 0301 0002 02 46'))).toMatchObject({ description: 70, name: 'protocol_version' });
    expect(parseServerResponse(hex('15 0303 0002 02 47'))).toMatchObject({ description: 71, name: 'insufficient_security' });
    expect(parseServerResponse(hex('15 0300 0002 02 c8'))).toMatchObject({ description: 200, name: 'alert_200' });
    expect(parseServerResponse(hex('15 0303 0002 02'))).toEqual({ kind: 'incomplete' });
    expect(parseServerResponse(hex('15 0303 0001 02'))).toMatchObject({ kind: 'malformed' });
  });

  it('recognises an SSL 2.0 SERVER-HELLO', () => {
    // 2-byte header with the top bit set, then SERVER-HELLO (4), session-id-hit, certificate type, version 0x0002.
    expect(parseServerResponse(hex('8034 04 00 01 0002'))).toEqual({ kind: 'sslv2' });
    expect(parseServerResponse(hex('80'))).toEqual({ kind: 'incomplete' });
  });

  it('calls anything else malformed instead of throwing', () => {
    expect(parseServerResponse(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'))).toMatchObject({ kind: 'malformed' });
    expect(parseServerResponse(Buffer.from('SSH-2.0-OpenSSH_9.6\r\n'))).toMatchObject({ kind: 'malformed' });
    expect(parseServerResponse(hex('16 0203 0001 00'))).toMatchObject({ kind: 'malformed' }); // record version 2.3
    expect(parseServerResponse(hex('16 0303 ffff'))).toMatchObject({ kind: 'malformed' }); // longer than any record
    expect(parseServerResponse(CERTIFICATE_RECORD)).toMatchObject({ kind: 'malformed', reason: expect.stringContaining('11') });
    expect(parseServerResponse(hex('17 0303 0001 00'))).toMatchObject({ kind: 'malformed' }); // application data first
    // A ServerHello whose length covers fewer bytes than its fields need.
    expect(parseServerResponse(hex('16 0303 0008 02 000004 0303 1111'))).toMatchObject({ kind: 'malformed' });
  });
});
