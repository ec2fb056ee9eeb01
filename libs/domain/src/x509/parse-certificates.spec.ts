import { createHash, webcrypto } from 'node:crypto';
import { parseCertificates, parseFirstCertificate } from './parse-certificates';
import { generateKeyPair, mintCertificate, MintedCertificate, pemBundle } from '../../testing/mint';
import { CertificateParseResult } from './types';

let first: MintedCertificate;
let second: MintedCertificate;
let third: MintedCertificate;

beforeAll(async () => {
  const keys = await generateKeyPair('ecdsa-p256');
  [first, second, third] = await Promise.all(
    ['one', 'two', 'three'].map((name) => mintCertificate({ keys, subject: `CN=${name}.example.com`, sans: [`${name}.example.com`] })),
  );
});

const commonNames = (result: CertificateParseResult) => result.certificates.map((certificate) => certificate.commonName);
const base64Of = (minted: MintedCertificate) => Buffer.from(minted.der).toString('base64');
const pemBlock = (label: string, bytes: Uint8Array) =>
  `-----BEGIN ${label}-----\n${Buffer.from(bytes).toString('base64').replace(/.{64}/g, '$&\n')}\n-----END ${label}-----\n`;

/** Cuts the base64 body of a PEM block in half, as a careless copy and paste does. */
function truncatedPem(minted: MintedCertificate): string {
  const body = base64Of(minted);
  return `-----BEGIN CERTIFICATE-----\n${body.slice(0, 200)}\n-----END CERTIFICATE-----\n`;
}

describe('PEM input', () => {
  it('reads a bundle with text before, between and after the blocks', () => {
    const input = [
      'subject=CN=one.example.com',
      'issuer=CN=one.example.com',
      first.pem,
      'Bag Attributes',
      '    friendlyName: second',
      second.pem,
      'Certificate:\n    Data:\n        Version: 3 (0x2)\n        Serial Number: 1 (0x1)',
      third.pem,
      '-- end of chain --',
    ].join('\n');
    const result = parseCertificates(input);
    expect(result.errors).toEqual([]);
    expect(commonNames(result)).toEqual(['one.example.com', 'two.example.com', 'three.example.com']);
  });

  it('tolerates CRLF line ends, indentation and blank lines inside blocks', () => {
    const indented = pemBundle(first, second)
      .split('\n')
      .map((line, i) => (i % 3 === 0 ? `\t  ${line}\n` : `    ${line}`))
      .join('\r\n');
    const result = parseCertificates(indented);
    expect(result.errors).toEqual([]);
    expect(commonNames(result)).toEqual(['one.example.com', 'two.example.com']);
  });

  it('accepts the old X509 CERTIFICATE label', () => {
    expect(commonNames(parseCertificates(pemBlock('X509 CERTIFICATE', first.der)))).toEqual(['one.example.com']);
  });

  it('skips other PEM blocks when there are certificates, counting them in the block index', async () => {
    const privateKey = await privateKeyPem();
    const input = [privateKey, first.pem, pemBlock('CERTIFICATE REQUEST', new Uint8Array([0x30, 0x00])), truncatedPem(second)].join('');
    const result = parseCertificates(input);
    expect(commonNames(result)).toEqual(['one.example.com']);
    expect(result.errors).toEqual([{ index: 3, code: 'invalid_der', message: 'The certificate is truncated.' }]);
  });

  it('returns the good certificates of a bundle next to an error for the corrupted block', () => {
    const result = parseCertificates([first.pem, truncatedPem(second), third.pem].join(''));
    expect(commonNames(result)).toEqual(['one.example.com', 'three.example.com']);
    expect(result.errors).toEqual([{ index: 1, code: 'invalid_der', message: 'The certificate is truncated.' }]);
  });

  it('reports a block that is not base64 as invalid_pem', () => {
    const corrupted = second.pem.replace(/^(-----BEGIN CERTIFICATE-----\n.{10})/, '$1!*?');
    const result = parseCertificates(first.pem + corrupted);
    expect(commonNames(result)).toEqual(['one.example.com']);
    expect(result.errors).toEqual([{ index: 1, code: 'invalid_pem', message: 'The CERTIFICATE block is not valid base64.' }]);
  });

  it('reports a block without its END line as invalid_pem', () => {
    const cut = second.pem.replace('-----END CERTIFICATE-----', '');
    const result = parseCertificates(first.pem + cut + third.pem);
    expect(commonNames(result)).toEqual(['one.example.com', 'three.example.com']);
    expect(result.errors).toEqual([{ index: 1, code: 'invalid_pem', message: 'The CERTIFICATE block has no matching END line.' }]);
  });

  it('reports base64 that decodes to something other than a certificate as invalid_der', () => {
    const result = parseCertificates(pemBlock('CERTIFICATE', new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01])));
    expect(result).toEqual({
      certificates: [],
      errors: [{ index: 0, code: 'invalid_der', message: 'The data is not a valid DER-encoded X.509 certificate.' }],
    });
  });

  it('returns duplicates once, at their first position', () => {
    const result = parseCertificates(pemBundle(first, second, first, third, second));
    expect(commonNames(result)).toEqual(['one.example.com', 'two.example.com', 'three.example.com']);
    expect(result.errors).toEqual([]);
  });

  it('computes the fingerprints over the DER', () => {
    const [certificate] = parseCertificates(first.pem).certificates;
    expect(certificate.der).toEqual(first.der);
    expect(certificate.fingerprintSha256).toBe(createHash('sha256').update(first.der).digest('hex'));
    expect(certificate.fingerprintSha1).toBe(createHash('sha1').update(first.der).digest('hex'));
  });
});

describe('base64 and DER input', () => {
  it('reads a bare base64 DER string, whitespace and line breaks included', () => {
    const wrapped = `\n  ${base64Of(first).replace(/.{76}/g, '$&\r\n  ')}  \n`;
    expect(commonNames(parseCertificates(wrapped))).toEqual(['one.example.com']);
  });

  it('reads base64url', () => {
    const base64url = Buffer.from(first.der).toString('base64url');
    expect(commonNames(parseCertificates(base64url))).toEqual(['one.example.com']);
  });

  it('reads raw DER as a Uint8Array or a Buffer, with or without a trailing newline', () => {
    expect(commonNames(parseCertificates(first.der))).toEqual(['one.example.com']);
    expect(commonNames(parseCertificates(Buffer.from(first.der)))).toEqual(['one.example.com']);
    expect(commonNames(parseCertificates(Buffer.concat([first.der, Buffer.from('\r\n')])))).toEqual(['one.example.com']);
  });

  it('returns DER bytes that do not alias the input', () => {
    const input = Buffer.concat([first.der, Buffer.from('\n')]);
    const [certificate] = parseCertificates(input).certificates;
    input.fill(0);
    expect(certificate.der).toEqual(first.der);
  });

  it('reads PEM handed over as bytes: UTF-8, or UTF-16LE with a byte order mark', () => {
    expect(commonNames(parseCertificates(new TextEncoder().encode(pemBundle(first, second))))).toEqual([
      'one.example.com',
      'two.example.com',
    ]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(first.pem, 'utf16le')]);
    expect(commonNames(parseCertificates(utf16))).toEqual(['one.example.com']);
  });

  it.each([
    ['DER', () => first.der.subarray(0, first.der.length - 10)],
    ['base64', () => base64Of(first).slice(0, 300)],
    ['PEM', () => truncatedPem(first)],
  ])('reports truncated %s as invalid_der', (_, input) => {
    expect(parseCertificates(input())).toEqual({
      certificates: [],
      errors: [{ index: 0, code: 'invalid_der', message: 'The certificate is truncated.' }],
    });
  });

  it('reports DER followed by other data as invalid_der', () => {
    const result = parseCertificates(Buffer.concat([first.der, Buffer.from('garbage')]));
    expect(result.errors).toEqual([{ index: 0, code: 'invalid_der', message: 'The data is not a valid DER-encoded X.509 certificate.' }]);
  });
});

describe('input without certificates', () => {
  it.each([
    ['an empty string', ''],
    ['whitespace', ' \r\n\t\n'],
    ['no bytes', new Uint8Array()],
  ])("reports %s as 'empty'", (_, input) => {
    expect(parseCertificates(input)).toEqual({ certificates: [], errors: [{ index: 0, code: 'empty', message: 'The input is empty.' }] });
  });

  it("reports a lone PRIVATE KEY block as 'not_a_certificate', naming what it found", async () => {
    expect(parseCertificates(await privateKeyPem())).toEqual({
      certificates: [],
      errors: [{ index: 0, code: 'not_a_certificate', message: 'The input has no CERTIFICATE or PKCS7 block, only: PRIVATE KEY.' }],
    });
  });

  it("does not take 'TRUSTED CERTIFICATE' blocks", () => {
    expect(parseCertificates(pemBlock('TRUSTED CERTIFICATE', first.der)).errors).toEqual([
      { index: 0, code: 'not_a_certificate', message: 'The input has no CERTIFICATE or PKCS7 block, only: TRUSTED CERTIFICATE.' },
    ]);
  });

  it.each([
    ['a PNG', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52])],
    ['prose', 'Please find our certificate attached.'],
    ['base64 that is not DER', Buffer.from('hello, world').toString('base64')],
    ['a broken BEGIN line', '-----BEGIN CERTIFICATE\nMIIB\n-----END CERTIFICATE-----'],
  ])("reports %s as 'not_a_certificate'", (_, input) => {
    const result = parseCertificates(input);
    expect(result.certificates).toEqual([]);
    expect(result.errors).toEqual([{ index: 0, code: 'not_a_certificate', message: expect.any(String) }]);
  });
});

describe('the certificate limit', () => {
  it('accepts 100 blocks by default', () => {
    const result = parseCertificates(first.pem.repeat(100));
    expect(result.errors).toEqual([]);
    expect(result.certificates).toHaveLength(1);
  });

  it("refuses 101 blocks with a single 'too_many' error and no certificates", () => {
    expect(parseCertificates(first.pem.repeat(101))).toEqual({
      certificates: [],
      errors: [{ index: 100, code: 'too_many', message: 'The input has 101 certificates; at most 100 are accepted at once.' }],
    });
  });

  it('takes its limit from the options, ignoring nonsense', () => {
    const bundle = pemBundle(first, second, third);
    expect(parseCertificates(bundle, { maxCertificates: 2 }).errors).toMatchObject([{ index: 2, code: 'too_many' }]);
    expect(parseCertificates(bundle, { maxCertificates: 3 }).certificates).toHaveLength(3);
    expect(parseCertificates(bundle, { maxCertificates: NaN }).certificates).toHaveLength(3);
    expect(parseCertificates(bundle, { maxCertificates: -1 }).certificates).toHaveLength(3);
  });
});

describe('never throws', () => {
  it('survives every single-byte corruption of a certificate', () => {
    for (let position = 0; position < first.der.length; position++) {
      const corrupted = Uint8Array.from(first.der);
      corrupted[position] ^= 0xff;
      const result = parseCertificates(corrupted);
      expect(result.certificates.length + result.errors.length).toBe(1);
    }
  });

  it('survives every truncation of a certificate', () => {
    for (let length = 0; length < first.der.length; length++) {
      const result = parseCertificates(first.der.subarray(0, length));
      expect(result.certificates).toEqual([]);
      expect(result.errors).toHaveLength(1);
    }
  });

  it('survives random bytes and random text', () => {
    const random = seededRandom(20261121);
    for (let round = 0; round < 300; round++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 600) }, () => Math.floor(random() * 256));
      // Half the rounds look like DER (a SEQUENCE tag) so that they reach the certificate parser.
      if (round % 2 === 0 && bytes.length > 0) bytes[0] = 0x30;
      expect(() => parseCertificates(bytes)).not.toThrow();
      expect(() => parseCertificates(Buffer.from(bytes).toString('latin1'))).not.toThrow();
      expect(() =>
        parseCertificates(`-----BEGIN CERTIFICATE-----\n${Buffer.from(bytes).toString('base64')}\n-----END CERTIFICATE-----`),
      ).not.toThrow();
    }
  });

  it('survives huge inputs', () => {
    expect(parseCertificates('A'.repeat(8_000_000)).errors).toMatchObject([{ code: 'not_a_certificate' }]);
    expect(parseCertificates('-----BEGIN CERTIFICATE-----\n'.repeat(200_000)).errors).toMatchObject([{ index: 100, code: 'too_many' }]);
    const headerOnly = new Uint8Array(16).fill(0xff);
    headerOnly.set([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]);
    expect(parseCertificates(headerOnly).errors).toMatchObject([{ code: 'invalid_der' }]);
  });

  it('survives values untyped callers might pass', () => {
    const untyped: unknown[] = [null, undefined, 42, {}, [first.der], new ArrayBuffer(8)];
    for (const input of untyped) {
      expect(parseCertificates(input as string).errors).toMatchObject([{ code: 'not_a_certificate' }]);
      expect(parseFirstCertificate(input as string)).toMatchObject({ error: { code: 'not_a_certificate' } });
    }
  });
});

describe('parseFirstCertificate', () => {
  it('returns the first certificate of a bundle', () => {
    const outcome = parseFirstCertificate(pemBundle(first, second));
    expect(outcome).toEqual({ certificate: expect.objectContaining({ commonName: 'one.example.com' }) });
  });

  it('returns the error of a broken first block rather than the next certificate', () => {
    expect(parseFirstCertificate(truncatedPem(first) + second.pem)).toEqual({
      error: { index: 0, code: 'invalid_der', message: 'The certificate is truncated.' },
    });
  });

  it('returns the reason when there is no certificate', () => {
    expect(parseFirstCertificate('')).toEqual({ error: { index: 0, code: 'empty', message: 'The input is empty.' } });
  });

  it('is not limited by the bundle size, since it reads one certificate', () => {
    expect(parseFirstCertificate(first.pem.repeat(150))).toMatchObject({ certificate: { commonName: 'one.example.com' } });
  });
});

async function privateKeyPem(): Promise<string> {
  const { privateKey } = await generateKeyPair('ecdsa-p256');
  return pemBlock('PRIVATE KEY', new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', privateKey)));
}

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
