import type { CertificateRevocationEntity } from '../revocation/certificate-revocation.entity';
import { certificateToPem, daysRemaining } from '@certkeeper/domain';
import { isoTimestamp } from '../../common/http/iso-timestamp';
import { toCurrentCertificate } from '../endpoints/endpoints.mapper';
import type { LinkedEndpointRow } from '../links/links.repository';
import type { CertificateEntity } from './certificate.entity';
import type { StoredRenewalInfo } from '../renewal-info/renewal-info.repository';
import type {
  ActiveCertificateDto,
  CertificateDetailDto,
  CertificateSummaryDto,
  LinkedEndpointDto,
  RenewalInfoDto,
} from './certificates.dto';
import type { ActiveLinkRow, CertificateSummary } from './certificates.repository';

export function toCertificateSummary(row: CertificateSummary, now: Date): CertificateSummaryDto {
  return {
    fingerprint: row.fingerprint,
    commonName: row.commonName,
    sans: row.sans,
    issuerCommonName: row.issuerCommonName,
    serialNumber: row.serialNumber,
    notBefore: isoTimestamp(row.notBefore),
    notAfter: isoTimestamp(row.notAfter),
    daysRemaining: daysRemaining(row.notAfter, now),
    keyAlgorithm: row.keyAlgorithm,
    keySize: row.keySize,
    isCa: row.isCa,
    selfSigned: row.selfSigned,
    trustedBy: row.trustedBy,
    isTrustAnchor: row.isTrustAnchor,
  };
}

export function toLinkedEndpoint(row: LinkedEndpointRow): LinkedEndpointDto {
  return {
    endpointId: row.endpointId,
    endpointName: row.endpointName,
    endpointType: row.endpointType,
    certUse: row.certUse,
    firstSeenAt: row.firstSeenAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
  };
}

export function toCertificateDetail(
  certificate: CertificateEntity,
  related: {
    issuerFingerprint: string | null;
    current: LinkedEndpointRow[];
    historical: LinkedEndpointRow[];
    renewalInfo: StoredRenewalInfo | null;
    revocation: CertificateRevocationEntity | null;
  },
  now: Date,
): CertificateDetailDto {
  return {
    ...toCertificateSummary(certificate, now),
    sha1Fingerprint: certificate.sha1Fingerprint,
    subject: certificate.subject,
    subjectOrganization: certificate.subjectOrganization,
    subjectOrganizationalUnit: certificate.subjectOrganizationalUnit,
    issuer: certificate.issuer,
    issuerOrganization: certificate.issuerOrganization,
    issuerFingerprint: related.issuerFingerprint,
    keyCurve: certificate.keyCurve,
    signatureAlgorithm: certificate.signatureAlgorithm,
    keyUsage: certificate.keyUsage,
    extendedKeyUsage: certificate.extendedKeyUsage,
    ocspUrls: certificate.ocspUrls,
    crlDistributionPoints: certificate.crlDistributionPoints,
    caIssuersUrls: certificate.caIssuersUrls,
    subjectKeyId: certificate.subjectKeyId,
    authorityKeyId: certificate.authorityKeyId,
    pathLength: certificate.pathLength,
    pem: certificateToPem(certificate.der),
    currentEndpoints: related.current.map(toLinkedEndpoint),
    historicalEndpoints: related.historical.map(toLinkedEndpoint),
    revocation: related.revocation && {
      status: related.revocation.status,
      source: related.revocation.source,
      revokedAt: related.revocation.revokedAt?.toISOString() ?? null,
      reason: related.revocation.reason,
      checkedAt: related.revocation.checkedAt.toISOString(),
      error: related.revocation.error,
    },
    renewalInfo: related.renewalInfo && toRenewalInfo(related.renewalInfo),
  };
}

function toRenewalInfo(info: StoredRenewalInfo): RenewalInfoDto {
  return {
    caName: info.caName,
    windowStart: info.start.toISOString(),
    windowEnd: info.end.toISOString(),
    explanationUrl: info.explanationUrl,
    checkedAt: info.checkedAt.toISOString(),
    nextCheckAt: info.nextCheckAt.toISOString(),
  };
}

export function toActiveCertificate(row: ActiveLinkRow, now: Date): ActiveCertificateDto {
  return {
    endpointId: row.endpointId,
    endpointName: row.endpointName,
    endpointType: row.endpointType,
    endpointTags: row.endpointTags,
    ...toCurrentCertificate(row, now),
  };
}
