import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** One element of a parsed document, with its namespace resolved and its text decoded. */
export interface XmlElement {
  /** The namespace URI the element's prefix (or the default namespace) resolves to; null when none is declared. */
  namespace: string | null;
  /** The name without its prefix: 'EntityDescriptor' for both <md:EntityDescriptor> and <EntityDescriptor>. */
  localName: string;
  /** Attribute values by name as written ('entityID', 'xmlns:md'), character references decoded. */
  attributes: ReadonlyMap<string, string>;
  children: XmlElement[];
  /** The element's own character data (CDATA included, descendants' text excluded), untrimmed. */
  text: string;
}

export type XmlReading =
  { kind: 'element'; root: XmlElement } | { kind: 'refused'; message: string } | { kind: 'invalid'; message: string };

// A document type declaration is the only way to define entities, so refusing it outright rules out
// external entities (XXE) and entity expansion (billion laughs) before any parser sees the text.
// SAML metadata never needs one. Case and spacing are matched loosely on purpose: refusing a
// malformed declaration costs nothing.
const DOCUMENT_TYPE_DECLARATION = /<!\s*(?:DOCTYPE|ENTITY)/i;
const BYTE_ORDER_MARK = '\uFEFF';
const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';
const ATTRIBUTE_PREFIX = '@_';
const ATTRIBUTES_KEY = ':@';
const TEXT_KEY = '#text';
const CDATA_KEY = '#cdata';
// Entity processing is off, so the parser leaves even &amp; alone; only these are decoded, one
// reference at a time, which cannot expand into more than one character.
const CHARACTER_REFERENCE = /&(?:#([0-9]{1,8})|#x([0-9a-fA-F]{1,7})|(amp|lt|gt|quot|apos));/g;
const PREDEFINED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const LARGEST_CODE_POINT = 0x10ffff;

/**
 * The prefixes an element declares, linked to its parent's scope. Looking a prefix up walks at most
 * maxNestedTags scopes; copying every scope instead would let a document that declares many
 * prefixes on many elements cost quadratic time.
 */
interface NamespaceScope {
  /** Prefix ('' for the default namespace) to URI; '' as URI undeclares it (xmlns=""). */
  declarations: ReadonlyMap<string, string>;
  parent: NamespaceScope | null;
}
const INITIAL_SCOPE: NamespaceScope = { declarations: new Map([['xml', XML_NAMESPACE]]), parent: null };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: ATTRIBUTE_PREFIX,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  cdataPropName: CDATA_KEY,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Metadata is a dozen levels deep even inside nested aggregates; the limit keeps recursion bounded.
  maxNestedTags: 100,
});

/**
 * Reads a whole XML document into a tree. Refuses any document type declaration, reports text
 * that is not one well-formed element as invalid, and never throws.
 */
export function readXml(text: string): XmlReading {
  const content = text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
  if (DOCUMENT_TYPE_DECLARATION.test(content)) {
    return { kind: 'refused', message: 'The document has a DOCTYPE or ENTITY declaration; such documents are refused.' };
  }
  const validation = XMLValidator.validate(content);
  if (validation !== true) {
    const { line, col, msg } = validation.err;
    return { kind: 'invalid', message: `The document is not well-formed XML (line ${line}, column ${col}): ${msg}` };
  }
  try {
    return rootOf(parser.parse(content) as unknown);
  } catch (error) {
    // The parser throws on what the validator lets through: too deep nesting, reserved names such as __proto__.
    return { kind: 'invalid', message: `The document could not be parsed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function rootOf(parsed: unknown): XmlReading {
  const elements = Array.isArray(parsed) ? elementsAmong(parsed, INITIAL_SCOPE) : [];
  if (elements.length !== 1) return { kind: 'invalid', message: `The document has ${elements.length} root elements instead of one.` };
  return { kind: 'element', root: elements[0] };
}

function elementsAmong(nodes: unknown[], scope: NamespaceScope): XmlElement[] {
  return nodes.flatMap((node) => {
    if (!isRecord(node)) return [];
    const name = elementNameOf(node);
    return name === null ? [] : [toElement(node, name, scope)];
  });
}

/** In order-preserving output a node is { [tag]: children, ':@'?: attributes }, or a text or CDATA node. */
function elementNameOf(node: Record<string, unknown>): string | null {
  const name = Object.keys(node).find((key) => key !== ATTRIBUTES_KEY);
  return name === undefined || name === TEXT_KEY || name === CDATA_KEY ? null : name;
}

function toElement(node: Record<string, unknown>, qualifiedName: string, enclosingScope: NamespaceScope): XmlElement {
  const attributes = attributesOf(node[ATTRIBUTES_KEY]);
  const scope = withDeclarations(enclosingScope, attributes);
  const children = arrayOf(node[qualifiedName]);
  const separator = qualifiedName.indexOf(':');
  const prefix = separator === -1 ? '' : qualifiedName.slice(0, separator);
  return {
    namespace: namespaceOf(prefix, scope),
    localName: qualifiedName.slice(separator + 1),
    attributes,
    children: elementsAmong(children, scope),
    text: textAmong(children),
  };
}

function attributesOf(raw: unknown): Map<string, string> {
  const attributes = new Map<string, string>();
  if (!isRecord(raw)) return attributes;
  for (const [key, value] of Object.entries(raw)) {
    if (key.startsWith(ATTRIBUTE_PREFIX) && typeof value === 'string') {
      attributes.set(key.slice(ATTRIBUTE_PREFIX.length), decodeCharacterReferences(value));
    }
  }
  return attributes;
}

/** xmlns="..." sets the default namespace (prefix ''), xmlns:p="..." binds p, for this element and below. */
function withDeclarations(enclosing: NamespaceScope, attributes: ReadonlyMap<string, string>): NamespaceScope {
  const declarations = new Map<string, string>();
  for (const [name, uri] of attributes) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) declarations.set(name.slice('xmlns:'.length), uri);
  }
  return declarations.size === 0 ? enclosing : { declarations, parent: enclosing };
}

function namespaceOf(prefix: string, scope: NamespaceScope | null): string | null {
  for (let current = scope; current !== null; current = current.parent) {
    const uri = current.declarations.get(prefix);
    if (uri !== undefined) return uri === '' ? null : uri;
  }
  return null;
}

function textAmong(nodes: unknown[]): string {
  return nodes.map(textOf).join('');
}

function textOf(node: unknown): string {
  if (!isRecord(node)) return '';
  if (TEXT_KEY in node) return decodeCharacterReferences(stringOf(node[TEXT_KEY]));
  // CDATA is literal: '&amp;' inside it stays as written.
  if (CDATA_KEY in node)
    return arrayOf(node[CDATA_KEY])
      .map((part) => (isRecord(part) ? stringOf(part[TEXT_KEY]) : ''))
      .join('');
  return '';
}

export function decodeCharacterReferences(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(CHARACTER_REFERENCE, (reference: string, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return PREDEFINED_ENTITIES[name];
    const codePoint = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
    return isCharacter(codePoint) ? String.fromCodePoint(codePoint) : reference;
  });
}

function isCharacter(codePoint: number): boolean {
  const isSurrogate = codePoint >= 0xd800 && codePoint <= 0xdfff;
  return codePoint > 0 && codePoint <= LARGEST_CODE_POINT && !isSurrogate;
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
