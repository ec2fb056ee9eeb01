import type { XmlElement } from './safe-xml';

export const METADATA_NAMESPACE = 'urn:oasis:names:tc:SAML:2.0:metadata';
export const XMLDSIG_NAMESPACE = 'http://www.w3.org/2000/09/xmldsig#';

/**
 * Matches on local name and namespace. An element in no namespace at all also matches: hand-written
 * metadata sometimes forgets the xmlns declaration, and its meaning is still unambiguous. An
 * element in another namespace (a <saml:Attribute> extension, say) never matches.
 */
export function isNamed(element: XmlElement, namespace: string, localName: string): boolean {
  return element.localName === localName && (element.namespace === namespace || element.namespace === null);
}

export function childrenNamed(element: XmlElement, namespace: string, localName: string): XmlElement[] {
  return element.children.filter((child) => isNamed(child, namespace, localName));
}

/** The trimmed attribute value; null when absent or blank. */
export function attributeOf(element: XmlElement, name: string): string | null {
  const value = element.attributes.get(name)?.trim();
  return value === undefined || value === '' ? null : value;
}

/** The trimmed text of the first child so named; null when there is none or it is blank. */
export function childText(element: XmlElement, namespace: string, localName: string): string | null {
  const text = childrenNamed(element, namespace, localName)[0]?.text.trim();
  return text === undefined || text === '' ? null : text;
}

/** Trimmed, non-blank texts of every child so named. */
export function childTexts(element: XmlElement, namespace: string, localName: string): string[] {
  return childrenNamed(element, namespace, localName)
    .map((child) => child.text.trim())
    .filter((text) => text !== '');
}
