import { contextTag, decodeText, DerElement, readChildren } from './der';
import { formatIpAddress } from './ip-address';

/** The GeneralName forms Certkeeper reports (RFC 5280 section 4.2.1.6); the others are skipped. */
export type GeneralName = { type: 'email' | 'dns' | 'uri' | 'ip'; value: string };

// GeneralName is a CHOICE of implicitly tagged alternatives; these are the tag numbers.
const RFC822_NAME = contextTag(1);
const DNS_NAME = contextTag(2);
const UNIFORM_RESOURCE_IDENTIFIER = contextTag(6);
const IP_ADDRESS = contextTag(7);

/** Decodes GeneralNames (a SEQUENCE OF GeneralName, or an implicitly tagged one) in certificate order. */
export function decodeGeneralNames(names: DerElement): GeneralName[] {
  return readChildren(names)
    .map(decodeGeneralName)
    .filter((name): name is GeneralName => name !== null);
}

export function uris(names: (GeneralName | null)[]): string[] {
  return names.flatMap((name) => (name?.type === 'uri' ? [name.value] : []));
}

/**
 * Null for the forms Certkeeper does not report (otherName, directoryName, registeredID, ...) and
 * for IP addresses of the wrong length: @peculiar/x509 throws on several of those, which is why
 * these names are read here.
 */
export function decodeGeneralName(name: DerElement): GeneralName | null {
  switch (name.tag) {
    case RFC822_NAME:
      return { type: 'email', value: decodeText(name) };
    case DNS_NAME:
      return { type: 'dns', value: decodeText(name) };
    case UNIFORM_RESOURCE_IDENTIFIER:
      return { type: 'uri', value: decodeText(name) };
    case IP_ADDRESS: {
      const address = formatIpAddress(name.content);
      return address === null ? null : { type: 'ip', value: address };
    }
    default:
      return null;
  }
}
