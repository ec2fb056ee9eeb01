import { peculiarX509 } from '../x509/x509-library';

/** A certificate a CRL lists, its serial number as lower-case hex without a sign octet (as certificates store it). */
export interface RevokedEntry {
  serialNumber: string;
  revokedAt: Date;
  /** The reason code's RFC 5280 name (keyCompromise, superseded, ...); null when the entry gives none. */
  reason: string | null;
}

export type CrlReading =
  | { ok: true; thisUpdate: Date; nextUpdate: Date | null; entries: RevokedEntry[] }
  /** `error`: one sentence for operators, never the list's own text. */
  | { ok: false; error: string };

/**
 * Parses a CRL (DER or PEM) and verifies its signature against the first of `issuers` (DER
 * certificates whose subject is the list's issuer: a stored issuer, a presented chain
 * certificate or an anchor) whose key verifies it. A list that does not parse or verify is never
 * used: it gives the reason instead of its entries (docs/api-contract.md section 18).
 */
export async function readVerifiedCrl(body: Uint8Array, issuers: readonly Uint8Array[]): Promise<CrlReading> {
  const x509 = peculiarX509();
  let crl: InstanceType<typeof x509.X509Crl>;
  try {
    const text = Buffer.from(body.subarray(0, 64)).toString('latin1');
    crl = new x509.X509Crl(text.includes('-----BEGIN') ? Buffer.from(body).toString('latin1') : body, crlParseLimits(body.length));
  } catch {
    return { ok: false, error: 'The CRL could not be parsed.' };
  }
  const named = issuers.map((der) => new x509.X509Certificate(der)).filter((issuer) => issuer.subject === crl.issuer);
  if (named.length === 0) return { ok: false, error: 'No stored certificate of the CRL’s issuer, so its signature cannot be checked.' };
  let verified = false;
  for (const issuer of named) {
    verified = await crl.verify({ publicKey: issuer }).catch(() => false);
    if (verified) break;
  }
  if (!verified) return { ok: false, error: 'The CRL’s signature does not verify against its issuer’s key.' };
  const entries = crl.entries.map((entry) => ({
    serialNumber: normaliseSerial(entry.serialNumber),
    revokedAt: entry.revocationDate,
    reason: entry.reason === undefined ? null : (x509.X509CrlReason[entry.reason] ?? null),
  }));
  return { ok: true, thisUpdate: crl.thisUpdate, nextUpdate: crl.nextUpdate ?? null, entries };
}

/**
 * asn1js' default limits (10,000 nodes, 16 MiB of content) refuse any CRL of more than about
 * 2,000 entries, which public CAs publish every day. The download's own cap bounds the body, and
 * every node takes at least two of its bytes: limits from its size refuse nothing that fits.
 */
function crlParseLimits(bytes: number): { berOptions: { maxNodes: number; maxContentLength: number } } {
  return { berOptions: { maxNodes: Math.ceil(bytes / 2), maxContentLength: bytes } };
}

function normaliseSerial(hex: string): string {
  return hex.toLowerCase().replace(/^(00)+(?=..)/, '');
}
