import { bitStringBytes, decodeObjectIdentifier, DerElement, DerTag, expectTag, readChildren, readSingleDerElement } from './der';
import { KeyAlgorithmOid, NAMED_CURVES } from './oids';

export interface PublicKeyDescription {
  keyAlgorithm: string;
  keySize: number | null;
  keyCurve: string | null;
}

/** SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING } */
export function describePublicKey(subjectPublicKeyInfo: DerElement): PublicKeyDescription {
  const [algorithm, subjectPublicKey] = readChildren(subjectPublicKeyInfo);
  const [algorithmOid, parameters] = readChildren(expectTag(algorithm, DerTag.sequence, 'the key algorithm'));
  const oid = decodeObjectIdentifier(algorithmOid);
  switch (oid) {
    // An id-RSASSA-PSS key is an RSA key restricted to PSS signatures: same modulus, same strength.
    case KeyAlgorithmOid.rsaEncryption:
    case KeyAlgorithmOid.rsassaPss:
      return { keyAlgorithm: 'RSA', keySize: rsaModulusBits(subjectPublicKey), keyCurve: null };
    case KeyAlgorithmOid.ecPublicKey:
      return describeEcKey(parameters);
    case KeyAlgorithmOid.ed25519:
      return { keyAlgorithm: 'Ed25519', keySize: 256, keyCurve: null };
    // Ed448 keys are 57 octets: 456 bits, the figure RFC 8032 and OpenSSL give.
    case KeyAlgorithmOid.ed448:
      return { keyAlgorithm: 'Ed448', keySize: 456, keyCurve: null };
    default:
      return { keyAlgorithm: oid, keySize: null, keyCurve: null };
  }
}

/**
 * ECParameters is normally a namedCurve OID. Explicit curve parameters (forbidden by RFC 5480 but
 * seen in the wild) name no curve, so curve and size are unknown.
 */
function describeEcKey(parameters: DerElement | undefined): PublicKeyDescription {
  const curveOid = parameters?.tag === DerTag.objectIdentifier ? decodeObjectIdentifier(parameters) : null;
  const curve = curveOid === null ? undefined : NAMED_CURVES.get(curveOid);
  return { keyAlgorithm: 'ECDSA', keySize: curve?.bits ?? null, keyCurve: curve?.name ?? curveOid };
}

/** RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }, inside the BIT STRING. */
function rsaModulusBits(subjectPublicKey: DerElement): number | null {
  try {
    const [modulus] = readChildren(readSingleDerElement(bitStringBytes(subjectPublicKey)));
    return bitLength(expectTag(modulus, DerTag.integer, 'the RSA modulus').content);
  } catch {
    // The key is unusable, but the certificate's dates and names are still worth reporting.
    return null;
  }
}

function bitLength(unsignedBigEndian: Uint8Array): number | null {
  const firstNonZero = unsignedBigEndian.findIndex((byte) => byte !== 0);
  if (firstNonZero === -1) return null;
  const leadingBits = 32 - Math.clz32(unsignedBigEndian[firstNonZero]);
  return (unsignedBigEndian.length - firstNonZero - 1) * 8 + leadingBits;
}
