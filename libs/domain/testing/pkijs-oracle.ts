/**
 * pkijs as an independent oracle for tests: a second, unrelated implementation of X.509 signature
 * and path checks to compare our verdicts with. Not for production (decision 0005): it is 10 to 30
 * times slower than node:crypto per signature and does not compare the inner and outer signature
 * algorithms of a certificate.
 */
import { webcrypto } from 'node:crypto';
import * as pkijs from 'pkijs';

// pkijs verifies through a WebCrypto engine. It picks up globalThis.crypto on its own when loaded;
// naming Node's explicitly keeps the oracle independent of whatever engine another module set.
const ENGINE_NAME = 'node-webcrypto';
pkijs.setEngine(ENGINE_NAME, new pkijs.CryptoEngine({ name: ENGINE_NAME, crypto: webcrypto }));

/**
 * Whether pkijs finds that the key of `issuerDer` made the signature on `der`. Rejects when pkijs
 * cannot verify the algorithm at all (Ed25519 in pkijs 3) or the key does not suit it.
 */
export function pkijsVerifiesSignature(der: Uint8Array, issuerDer: Uint8Array): Promise<boolean> {
  return pkijs.Certificate.fromBER(der).verify(pkijs.Certificate.fromBER(issuerDer));
}

/**
 * Whether pkijs's path validation (RFC 5280 section 6, with its own issuer search among
 * `intermediates` and `anchors`) accepts `certificate` up to one of the trusted `anchors`.
 */
export async function pkijsValidatesPath(
  certificate: Uint8Array,
  intermediates: Uint8Array[],
  anchors: Uint8Array[],
  checkDate = new Date(),
): Promise<boolean> {
  const engine = new pkijs.CertificateChainValidationEngine({
    // pkijs takes the last certificate of the list for the one to validate.
    certs: [...intermediates, certificate].map((der) => pkijs.Certificate.fromBER(der)),
    trustedCerts: anchors.map((der) => pkijs.Certificate.fromBER(der)),
    checkDate,
  });
  return (await engine.verify()).result;
}
