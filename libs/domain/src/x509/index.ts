export { certificateCoversHostname, dnsNamesOf, hostnameCoverCandidates } from './hostname';
export { isCompleteChain } from './chain';
export { isIssuedBy } from './issued-by';
export { certificateToPem } from './parse-certificate';
export { parseCertificates, parseFirstCertificate } from './parse-certificates';
export type { CertificateParseError, CertificateParseErrorCode, CertificateParseResult, ParsedCertificate, ParseOptions } from './types';
