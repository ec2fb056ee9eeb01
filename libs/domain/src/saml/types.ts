import type { ParsedCertificate } from '../x509';

/** A protocol endpoint: where a binding (HTTP-Redirect, HTTP-POST, SOAP, ...) is served. */
export interface SamlEndpoint {
  binding: string;
  location: string;
}

/** An endpoint the entity may be asked for by number, such as an AssertionConsumerService. */
export interface SamlIndexedEndpoint extends SamlEndpoint {
  /** null when the attribute is absent or not a non-negative integer. */
  index: number | null;
  isDefault: boolean;
}

export interface SamlContact {
  /** contactType as given: 'technical', 'support', 'administrative', 'billing', 'other'. */
  type: string | null;
  company: string | null;
  givenName: string | null;
  surname: string | null;
  /** As given, usually 'mailto:' URIs. */
  emailAddresses: string[];
  telephoneNumbers: string[];
}

export interface SamlEntityPayload {
  entityId: string;
  /** IDPSSODescriptor gives 'idp', SPSSODescriptor 'sp'; other role descriptors add no role. */
  roles: ('idp' | 'sp')[];
  /**
   * When the entity's metadata stops being valid: the earliest validUntil of the EntityDescriptor
   * and every EntitiesDescriptor around it (an aggregate's validUntil bounds what it contains).
   * ISO 8601 in UTC when parseable, otherwise the attribute as given; null when none is set.
   */
  validUntil: string | null;
  singleSignOnServices: SamlEndpoint[];
  singleLogoutServices: SamlEndpoint[];
  assertionConsumerServices: SamlIndexedEndpoint[];
  contacts: SamlContact[];
}

export type SamlKeyUse = 'signing' | 'encryption';

/** One certificate an entity declares, with every use it is declared for. */
export interface SamlCertificate {
  entityId: string;
  /** 'signing' before 'encryption'; a KeyDescriptor without `use` counts for both. */
  uses: SamlKeyUse[];
  certificate: ParsedCertificate;
}

export type SamlProblemCode =
  'doctype_refused' | 'not_xml' | 'not_metadata' | 'bad_certificate' | 'entity_without_id' | 'too_large' | 'too_many_certificates';

export interface SamlProblem {
  code: SamlProblemCode;
  /** A short sentence for people. */
  message: string;
  /** The entity concerned, when there is one. */
  entityId?: string;
}

export interface SamlMetadataParseResult {
  /** In document order, nested EntitiesDescriptor elements flattened. */
  entities: SamlEntityPayload[];
  /** Every entity's certificates: one entry per (entityId, SHA-256 fingerprint), in document order. */
  certificates: SamlCertificate[];
  /** What could not be read; a bad part never hides the good ones (CONVENTIONS 15). */
  problems: SamlProblem[];
  /** SHA-256 of the input bytes (UTF-8 when given a string), 64 lower-case hex digits. */
  digest: string;
}

export interface SamlParseOptions {
  /** Largest document accepted, in bytes. Default 16 MiB, the scanner's fetch limit. */
  maxBytes?: number;
  /**
   * Most X509Certificate elements the entities may declare, counted before any is parsed; more
   * gives one 'too_many_certificates' problem and nothing else. Default DEFAULT_MAX_SAML_CERTIFICATES.
   */
  maxCertificates?: number;
}
