import { type CertificateParseResult, parseCertificates } from '../x509';
import { roleDescriptorsOf } from './entity-descriptor';
import { attributeOf, childrenNamed, METADATA_NAMESPACE, XMLDSIG_NAMESPACE } from './metadata-xml';
import type { XmlElement } from './safe-xml';
import type { SamlCertificate, SamlKeyUse, SamlProblem } from './types';

const BOTH_USES: readonly SamlKeyUse[] = ['signing', 'encryption'];

/** Reads the text of one ds:X509Certificate element. */
export type CertificateReader = (text: string) => CertificateParseResult;

/**
 * Parsing a certificate costs milliseconds (its signature is checked to tell self-signed ones), and
 * aggregates repeat certificates: a hosting provider often uses one key for hundreds of tenants. One
 * reader per document parses each distinct certificate once; entries that share a certificate share
 * its ParsedCertificate object.
 */
export function cachingCertificateReader(): CertificateReader {
  const cache = new Map<string, CertificateParseResult>();
  return (text) => {
    const key = text.replace(/\s+/g, '');
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const result = parseCertificates(text);
    cache.set(key, result);
    return result;
  };
}

export interface EntityCertificates {
  certificates: SamlCertificate[];
  problems: SamlProblem[];
}

/**
 * The certificates in the KeyDescriptors of every role of one entity. A certificate declared
 * several times (for signing in one KeyDescriptor, for encryption in another, or in two roles) is
 * one entry with every use; a certificate that cannot be read is a problem next to the others.
 * The document's own ds:Signature is not read: its certificate belongs to whoever signed the
 * file, not to the entity.
 */
export function readEntityCertificates(entity: XmlElement, entityId: string, readCertificate: CertificateReader): EntityCertificates {
  const byFingerprint = new Map<string, SamlCertificate>();
  const problems: SamlProblem[] = [];
  for (const keyDescriptor of keyDescriptorsOf(entity)) {
    const uses = usesOf(keyDescriptor);
    for (const base64 of x509CertificateTexts(keyDescriptor)) {
      const { certificates, errors } = readCertificate(base64);
      for (const error of errors) {
        const message = `A ${uses.join(' and ')} certificate of ${entityId} could not be read: ${error.message}`;
        problems.push({ code: 'bad_certificate', message, entityId });
      }
      for (const certificate of certificates) {
        const known = byFingerprint.get(certificate.fingerprintSha256);
        if (known === undefined) byFingerprint.set(certificate.fingerprintSha256, { entityId, uses: [...uses], certificate });
        else known.uses = mergedUses(known.uses, uses);
      }
    }
  }
  return { certificates: [...byFingerprint.values()], problems };
}

/** How many certificates the entity's KeyDescriptors declare, repeats included; nothing is decoded. */
export function countDeclaredCertificates(entity: XmlElement): number {
  return keyDescriptorsOf(entity).reduce((count, keyDescriptor) => count + x509CertificateTexts(keyDescriptor).length, 0);
}

function keyDescriptorsOf(entity: XmlElement): XmlElement[] {
  return roleDescriptorsOf(entity).flatMap((role) => childrenNamed(role, METADATA_NAMESPACE, 'KeyDescriptor'));
}

/** Without `use` a key serves both purposes (SAML metadata 2.4.1.1); an unknown value is read the same way. */
function usesOf(keyDescriptor: XmlElement): readonly SamlKeyUse[] {
  const use = attributeOf(keyDescriptor, 'use');
  if (use === 'signing' || use === 'encryption') return [use];
  return BOTH_USES;
}

function mergedUses(a: readonly SamlKeyUse[], b: readonly SamlKeyUse[]): SamlKeyUse[] {
  return BOTH_USES.filter((use) => a.includes(use) || b.includes(use));
}

/** ds:KeyInfo/ds:X509Data/ds:X509Certificate: base64 DER, a chain when X509Data holds several. */
function x509CertificateTexts(keyDescriptor: XmlElement): string[] {
  return childrenNamed(keyDescriptor, XMLDSIG_NAMESPACE, 'KeyInfo')
    .flatMap((keyInfo) => childrenNamed(keyInfo, XMLDSIG_NAMESPACE, 'X509Data'))
    .flatMap((x509Data) => childrenNamed(x509Data, XMLDSIG_NAMESPACE, 'X509Certificate'))
    .map((element) => element.text);
}
