export { DEFAULT_MAX_SAML_CERTIFICATES, parseSamlMetadata } from './parse-saml-metadata';
export type {
  SamlCertificate,
  SamlContact,
  SamlEndpoint,
  SamlEntityPayload,
  SamlIndexedEndpoint,
  SamlKeyUse,
  SamlMetadataParseResult,
  SamlParseOptions,
  SamlProblem,
  SamlProblemCode,
} from './types';
