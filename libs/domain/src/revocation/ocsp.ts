import { X509Certificate } from 'node:crypto';
import type * as Pkijs from 'pkijs';
import { loadedOnFirstUse } from '../loaded-on-first-use';
import { verifySignedBytes } from '../trust/signature';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start-up
const loadPkijs = loadedOnFirstUse(() => require('pkijs') as typeof Pkijs);

const OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';
const CRL_REASONS = [
  'unspecified',
  'keyCompromise',
  'cACompromise',
  'affiliationChanged',
  'superseded',
  'cessationOfOperation',
  'certificateHold',
  undefined,
  'removeFromCRL',
  'privilegeWithdrawn',
  'aACompromise',
] as const;

export type OcspReading =
  | { ok: true; status: 'good' | 'revoked' | 'unknown'; revokedAt: Date | null; reason: string | null; nextUpdate: Date | null }
  | { ok: false; error: string };

/** The DER of an OCSP request (RFC 6960) for one certificate, its CertID hashed with SHA-1 as responders expect. */
export async function buildOcspRequest(der: Uint8Array, issuerDer: Uint8Array): Promise<Uint8Array> {
  const pkijs = loadPkijs();
  const request = new pkijs.OCSPRequest();
  await request.createForCertificate(pkijs.Certificate.fromBER(der), {
    hashAlgorithm: 'SHA-1',
    issuerCertificate: pkijs.Certificate.fromBER(issuerDer),
  });
  return new Uint8Array(request.toSchema(true).toBER());
}

/**
 * Reads an OCSP response about the certificate `der` issued by `issuerDer`, used only when signed
 * by the issuer or by a responder certificate the issuer signed for id-kp-OCSPSigning, and only
 * before its nextUpdate (docs/api-contract.md section 18). Anything else gives the reason.
 */
export function readVerifiedOcspResponse(body: Uint8Array, der: Uint8Array, issuerDer: Uint8Array, now: Date): OcspReading {
  const pkijs = loadPkijs();
  let basic: Pkijs.BasicOCSPResponse;
  try {
    const response = pkijs.OCSPResponse.fromBER(body);
    const status = response.responseStatus.valueBlock.valueDec;
    if (status !== 0) return { ok: false, error: `The OCSP responder refused the request (status ${status}).` };
    if (!response.responseBytes) return { ok: false, error: 'The OCSP response holds no answer.' };
    basic = pkijs.BasicOCSPResponse.fromBER(response.responseBytes.response.valueBlock.valueHexView);
  } catch {
    return { ok: false, error: 'The OCSP response could not be parsed.' };
  }
  const issuer = new X509Certificate(issuerDer);
  if (!signedByIssuerOrDelegate(basic, issuer))
    return { ok: false, error: 'The OCSP response is not signed by the issuer or a responder it delegated.' };
  const serial = BigInt(`0x${new X509Certificate(der).serialNumber}`);
  const single = basic.tbsResponseData.responses.find(
    (candidate) => BigInt(`0x${Buffer.from(candidate.certID.serialNumber.valueBlock.valueHexView).toString('hex') || '0'}`) === serial,
  );
  if (!single) return { ok: false, error: 'The OCSP response does not answer for this certificate.' };
  const nextUpdate = single.nextUpdate ?? null;
  if (nextUpdate !== null && nextUpdate.getTime() <= now.getTime())
    return { ok: false, error: 'The OCSP response is past its nextUpdate.' };
  const choice = (single.certStatus as { idBlock: { tagNumber: number } }).idBlock.tagNumber;
  if (choice === 0) return { ok: true, status: 'good', revokedAt: null, reason: null, nextUpdate };
  if (choice === 1) return { ok: true, status: 'revoked', ...revokedInfo(single.certStatus), nextUpdate };
  return { ok: true, status: 'unknown', revokedAt: null, reason: null, nextUpdate };
}

/** RevokedInfo ::= SEQUENCE { revocationTime GeneralizedTime, revocationReason [0] EXPLICIT CRLReason OPTIONAL } */
function revokedInfo(status: unknown): { revokedAt: Date | null; reason: string | null } {
  const fields = (
    status as { valueBlock: { value: { toDate?: () => Date; valueBlock: { value: { valueBlock: { valueDec: number } }[] } }[] } }
  ).valueBlock.value;
  const revokedAt = fields[0]?.toDate?.() ?? null;
  const code = fields[1]?.valueBlock.value[0]?.valueBlock.valueDec;
  return { revokedAt, reason: code === undefined ? null : (CRL_REASONS[code] ?? null) };
}

/** The issuer's own signature, or that of a certificate in the response that the issuer signed for OCSP signing. */
function signedByIssuerOrDelegate(basic: Pkijs.BasicOCSPResponse, issuer: X509Certificate): boolean {
  const algorithm = basic.signatureAlgorithm.algorithmId;
  const data = basic.tbsResponseData.tbsView;
  const signature = basic.signature.valueBlock.valueHexView;
  if (verifySignedBytes(algorithm, data, signature, issuer.publicKey)) return true;
  for (const embedded of basic.certs ?? []) {
    const delegate = new X509Certificate(Buffer.from(embedded.toSchema().toBER()));
    const delegated =
      delegate.checkIssued(issuer) && delegate.verify(issuer.publicKey) && delegate.keyUsage?.includes(OCSP_SIGNING) === true;
    if (delegated && verifySignedBytes(algorithm, data, signature, delegate.publicKey)) return true;
  }
  return false;
}
