// Jest's functions imported, not global: the web's tsconfig (which type-checks these specs) loads no test types.
import { describe, expect, it } from '@jest/globals';
import { certificateInputChecks, uploadRefusal } from './certificate-input';

const MIB = 1024 * 1024;
const CERTIFICATE = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('certificate upload checks', () => {
  it('name a file over 10 MiB by the file field, and leave a DER file to the API', () => {
    expect(certificateInputChecks({ kind: 'too-large', fileName: 'bundle.p7b', size: 12 * MIB })).toEqual({
      file: 'bundle.p7b is 12.0 MiB: at most 10 MiB can be uploaded here.',
      pem: null,
    });
    expect(certificateInputChecks({ kind: 'der', fileName: 'leaf.der', bytes: new Uint8Array([0x30]) })).toEqual({ file: null, pem: null });
  });

  it('check pasted text as PEM holding a certificate, within 10 MiB', () => {
    expect(certificateInputChecks({ kind: 'pem', text: '' }).pem).toBe('Paste a certificate in PEM form, or pick a file.');
    expect(certificateInputChecks({ kind: 'pem', text: CERTIFICATE })).toEqual({ file: null, pem: null });
    const huge = CERTIFICATE + 'x'.repeat(10 * MIB);
    expect(certificateInputChecks({ kind: 'pem', text: huge }).pem).toBe(
      'The pasted text is 10.0 MiB: at most 10 MiB can be uploaded here.',
    );
  });

  it("place the API's sentences about the certificate by the input they concern, others where they name", () => {
    const refusal = 'certificate 1: the DER is not a certificate';
    expect(uploadRefusal(refusal, ['certUse'], { kind: 'pem', text: CERTIFICATE }).byField).toEqual({ pem: refusal });
    expect(uploadRefusal(refusal, ['certUse'], { kind: 'der', fileName: 'a.der', bytes: new Uint8Array() }).byField).toEqual({
      file: refusal,
    });
    const certUse = 'certUse must be one of the following values: tls, manual';
    expect(uploadRefusal(certUse, ['certUse'], { kind: 'pem', text: CERTIFICATE }).byField).toEqual({ certUse });
    const offline = 'The server could not be reached.';
    expect(uploadRefusal(offline, ['certUse'], { kind: 'pem', text: CERTIFICATE })).toEqual({ byField: {}, general: offline });
  });
});
