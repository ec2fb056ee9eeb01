export { certificateCoversHostname } from './hostname';
export { isIssuedBy } from './issued-by';
export { parseCertificates, parseFirstCertificate } from './parse-certificates';
export type { CertificateParseError, CertificateParseErrorCode, CertificateParseResult, ParsedCertificate, ParseOptions } from './types';
