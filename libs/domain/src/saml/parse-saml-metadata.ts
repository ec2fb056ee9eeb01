import { createHash } from 'node:crypto';
import { readEntityPayload } from './entity-descriptor';
import { cachingCertificateReader, type CertificateReader, countDeclaredCertificates, readEntityCertificates } from './key-descriptors';
import { attributeOf, isNamed, METADATA_NAMESPACE } from './metadata-xml';
import { readXml, type XmlElement } from './safe-xml';
import type { SamlMetadataParseResult, SamlParseOptions, SamlProblem, SamlProblemCode } from './types';
import { earlierValidUntil, normaliseDateTime } from './valid-until';

const MD = METADATA_NAMESPACE;
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
/**
 * Each distinct certificate costs about a millisecond to parse (its self-signature is checked), so
 * what a document declares, not its size, decides the parse time: 16 MiB of small certificates is
 * some 20,000 of them. Real metadata carries far fewer per byte: an entity holds endpoints,
 * organisation and contact details besides its one to three certificates, and federation aggregates
 * run at several KiB per entity, so a real document within 16 MiB declares a few thousand
 * certificates. 10,000 leaves that more than twice over and bounds a hostile document to some ten
 * seconds of parsing.
 */
export const DEFAULT_MAX_SAML_CERTIFICATES = 10_000;
const UTF16LE_BYTE_ORDER_MARK = [0xff, 0xfe];
const UTF16BE_BYTE_ORDER_MARK = [0xfe, 0xff];

/** An EntityDescriptor found in the document, with the validUntil of the aggregates around it. */
interface FoundEntity {
  element: XmlElement;
  enclosingValidUntil: string | null;
}

/**
 * Reads SAML 2.0 metadata: one EntityDescriptor, or an EntitiesDescriptor aggregate (nested ones
 * included) as federations publish. Pure: no network, and no signature check (the fetch decides
 * whom to trust). Never throws. A document with a DOCTYPE or ENTITY declaration is refused before
 * parsing ('doctype_refused'), which rules out XXE and entity expansion. A certificate or an entity
 * that cannot be read is a problem next to everything that could.
 */
export function parseSamlMetadata(document: string | Uint8Array, options: SamlParseOptions = {}): SamlMetadataParseResult {
  const digest = digestOf(document);
  try {
    return { ...parseDocument(document, limitsFrom(options)), digest };
  } catch {
    // Every step reports rather than throws; this only keeps the promise should one of them not.
    return { ...failure('not_xml', 'The document could not be read.'), digest };
  }
}

type ParsedDocument = Omit<SamlMetadataParseResult, 'digest'>;

interface Limits {
  maxBytes: number;
  maxCertificates: number;
}

function parseDocument(document: string | Uint8Array, limits: Limits): ParsedDocument {
  const size = byteLengthOf(document);
  const { maxBytes } = limits;
  if (size > maxBytes) return failure('too_large', `The document has ${size} bytes; at most ${maxBytes} are accepted.`);
  const reading = readXml(typeof document === 'string' ? document : decodeText(document));
  switch (reading.kind) {
    case 'refused':
      return failure('doctype_refused', reading.message);
    case 'invalid':
      return failure('not_xml', reading.message);
    case 'element':
      return readMetadata(reading.root, limits.maxCertificates);
  }
}

function readMetadata(root: XmlElement, maxCertificates: number): ParsedDocument {
  if (!isNamed(root, MD, 'EntityDescriptor') && !isNamed(root, MD, 'EntitiesDescriptor')) {
    const namespace = root.namespace === null ? 'no namespace' : `namespace ${root.namespace}`;
    return failure('not_metadata', `The document is XML but not SAML metadata: its root is ${root.localName} in ${namespace}.`);
  }
  const entities = findEntities(root, null);
  // Counted on the element tree, before any certificate is decoded: refusing costs no parsing.
  const declared = entities.reduce((count, { element }) => count + countDeclaredCertificates(element), 0);
  if (declared > maxCertificates) {
    return failure('too_many_certificates', `The document declares ${declared} certificates; at most ${maxCertificates} are accepted.`);
  }
  const result: ParsedDocument = { entities: [], certificates: [], problems: [] };
  const readCertificate = cachingCertificateReader();
  entities.forEach((found, position) => readEntity(found, position, readCertificate, result));
  return result;
}

/** EntityDescriptors in document order, however deeply EntitiesDescriptors nest. */
function findEntities(element: XmlElement, enclosingValidUntil: string | null): FoundEntity[] {
  if (isNamed(element, MD, 'EntityDescriptor')) return [{ element, enclosingValidUntil }];
  if (!isNamed(element, MD, 'EntitiesDescriptor')) return [];
  const validUntil = earlierValidUntil(enclosingValidUntil, validUntilOf(element));
  return element.children.flatMap((child) => findEntities(child, validUntil));
}

function readEntity(
  { element, enclosingValidUntil }: FoundEntity,
  position: number,
  readCertificate: CertificateReader,
  result: ParsedDocument,
): void {
  const entityId = attributeOf(element, 'entityID');
  if (entityId === null) {
    const message = `EntityDescriptor number ${position + 1} in the document has no entityID and was skipped.`;
    result.problems.push({ code: 'entity_without_id', message });
    return;
  }
  const validUntil = earlierValidUntil(enclosingValidUntil, validUntilOf(element));
  result.entities.push(readEntityPayload(element, entityId, validUntil));
  const { certificates, problems } = readEntityCertificates(element, entityId, readCertificate);
  result.certificates.push(...certificates);
  result.problems.push(...problems);
}

function validUntilOf(element: XmlElement): string | null {
  const value = attributeOf(element, 'validUntil');
  return value === null ? null : normaliseDateTime(value);
}

function failure(code: SamlProblemCode, message: string): ParsedDocument {
  const problem: SamlProblem = { code, message };
  return { entities: [], certificates: [], problems: [problem] };
}

function digestOf(document: string | Uint8Array): string {
  const hash = createHash('sha256');
  // Anything else only comes from untyped callers; it hashes as no bytes at all.
  if (typeof document === 'string' || document instanceof Uint8Array) hash.update(document);
  return hash.digest('hex');
}

function byteLengthOf(document: string | Uint8Array): number {
  return typeof document === 'string' ? Buffer.byteLength(document, 'utf8') : document.byteLength;
}

/** UTF-8 unless a byte order mark says UTF-16; TextDecoder drops the mark, UTF-8's included. */
function decodeText(bytes: Uint8Array): string {
  const startsWith = (mark: number[]) => mark.every((byte, i) => bytes[i] === byte);
  if (startsWith(UTF16LE_BYTE_ORDER_MARK)) return new TextDecoder('utf-16le').decode(bytes);
  if (startsWith(UTF16BE_BYTE_ORDER_MARK)) return new TextDecoder('utf-16be').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes);
}

function limitsFrom(options: SamlParseOptions): Limits {
  // NaN and negative values are mistakes, not limits; the default applies. Infinity means no limit.
  const limit = (requested: number | undefined, fallback: number) => (requested !== undefined && requested >= 0 ? requested : fallback);
  return {
    maxBytes: limit(options.maxBytes, DEFAULT_MAX_BYTES),
    maxCertificates: limit(options.maxCertificates, DEFAULT_MAX_SAML_CERTIFICATES),
  };
}
