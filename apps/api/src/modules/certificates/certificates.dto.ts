import { ApiHideProperty, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { WithExportFormat } from '../../common/http/csv/export-format';
import { ListWindowQueryDto, PageQueryDto } from '../../common/http/pagination';
import { IsTagList, ToBoolean, ToInteger } from '../../common/validation/decorators';
import { ENDPOINT_TYPES, type EndpointType } from '../endpoints/endpoint.entity';
import { CurrentCertificateDto, EndpointResponseDto } from '../endpoints/endpoints.dto';
import { CERT_USES, type CertUse } from '../links/endpoint-certificate.entity';
import {
  REVOCATION_SOURCES,
  REVOCATION_STATUSES,
  type RevocationSource,
  type RevocationStatus,
} from '../revocation/certificate-revocation.entity';

export class CertificateListQueryDto extends WithExportFormat(ListWindowQueryDto) {
  @ApiPropertyOptional({ description: 'Fingerprint prefix, or a substring of the common name or a SAN.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'isCa must be true or false' })
  isCa?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'selfSigned must be true or false' })
  selfSigned?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'expired must be true or false' })
  expired?: boolean;

  @ApiPropertyOptional({ description: 'true: certificates current on at least one endpoint; false: current on none.' })
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'inUse must be true or false' })
  inUse?: boolean;

  @ApiPropertyOptional({ default: true, description: 'false: trust anchors (root-store certificates) are left out.' })
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'anchors must be true or false' })
  anchors?: boolean;
}

export class ActiveQueryDto extends WithExportFormat(ListWindowQueryDto) {
  @ApiPropertyOptional({ enum: ENDPOINT_TYPES })
  @IsOptional()
  @IsIn(ENDPOINT_TYPES)
  type?: EndpointType;

  @ApiPropertyOptional({ type: [String], description: 'Repeatable; a row matches when its endpoint has any of them.' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value))
  @IsArray()
  @ArrayMaxSize(100)
  @IsTagList()
  tag?: string[];

  @ApiPropertyOptional({ enum: CERT_USES })
  @IsOptional()
  @IsIn(CERT_USES)
  certUse?: CertUse;
}

export class ExpiringQueryDto extends ActiveQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 3650,
    default: 30,
    description: 'Certificates expiring within this many days; expired ones always included.',
  })
  @IsOptional()
  @ToInteger()
  @IsInt()
  @Min(0)
  @Max(3650)
  days: number = 30;
}

export class LookupQueryDto {
  @ApiPropertyOptional({ description: 'SHA-256 or SHA-1, any case, colons allowed.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  fingerprint?: string;

  @ApiPropertyOptional({ description: 'Hexadecimal, any case, colons allowed.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  serialNumber?: string;

  @ApiPropertyOptional({ description: 'Certificates whose SANs (or CN, without DNS SANs) cover it; wildcards honoured.' })
  @IsOptional()
  @IsString()
  @MaxLength(253)
  hostname?: string;
}

export class SearchQueryDto extends PageQueryDto {
  @ApiProperty({ minLength: 2, maxLength: 200 })
  @IsString()
  @MinLength(2)
  @MaxLength(200)
  q!: string;
}

export class UploadQueryDto {
  @ApiPropertyOptional({ enum: CERT_USES, default: 'manual' })
  @IsOptional()
  @IsIn(CERT_USES)
  certUse?: CertUse;

  // Accepted but left out of the OpenAPI description: generators turn `cert_use` and `certUse` into
  // one identifier (docs/api-contract.md section 5).
  @ApiHideProperty()
  @IsOptional()
  @IsIn(CERT_USES)
  cert_use?: CertUse;

  @ApiPropertyOptional({ default: true, description: "false keeps the endpoint's other current certificates of this use (key rollover)." })
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'replace must be true or false' })
  replace: boolean = true;
}

export class CertificateSummaryDto {
  @ApiProperty({ description: 'SHA-256 of the DER, 64 lower-case hex.' }) fingerprint!: string;
  @ApiProperty({ type: String, nullable: true }) commonName!: string | null;
  @ApiProperty({ type: [String] }) sans!: string[];
  @ApiProperty({ type: String, nullable: true }) issuerCommonName!: string | null;
  @ApiProperty({ description: 'Lower-case hex.' }) serialNumber!: string;
  @ApiProperty({ format: 'date-time' }) notBefore!: string;
  @ApiProperty({ format: 'date-time' }) notAfter!: string;
  @ApiProperty({ type: 'integer', description: 'floor((notAfter - now) / 24 h); negative once expired.' }) daysRemaining!: number;
  @ApiProperty({ example: 'RSA' }) keyAlgorithm!: string;
  @ApiProperty({ type: 'integer', nullable: true }) keySize!: number | null;
  @ApiProperty() isCa!: boolean;
  @ApiProperty() selfSigned!: boolean;
  @ApiProperty({ type: [String], description: 'Root stores the certificate chains to.' }) trustedBy!: string[];
  @ApiProperty() isTrustAnchor!: boolean;
}

export class LinkedEndpointDto {
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty() endpointName!: string;
  @ApiProperty({ enum: ENDPOINT_TYPES }) endpointType!: EndpointType;
  @ApiProperty({ enum: CERT_USES }) certUse!: CertUse;
  @ApiProperty({ format: 'date-time' }) firstSeenAt!: string;
  @ApiProperty({ format: 'date-time', description: 'When it was last observed there.' }) lastSeenAt!: string;
}

/** The CA's suggested renewal window (RFC 9773; docs/api-contract.md section 15). */
export class RenewalInfoDto {
  @ApiProperty({ description: 'The configured ACME CA that answered.' }) caName!: string;
  @ApiProperty({ format: 'date-time' }) windowStart!: string;
  @ApiProperty({ format: 'date-time', description: 'Once past, the certificate is overdue for renewal (event renewal_overdue).' })
  windowEnd!: string;
  @ApiProperty({ type: String, nullable: true, format: 'uri', description: "The CA's page on why (http or https only)." })
  explanationUrl!: string | null;
  @ApiProperty({ format: 'date-time' }) checkedAt!: string;
  @ApiProperty({ format: 'date-time', description: 'Not asked again before this (the Retry-After of the answer).' }) nextCheckAt!: string;
}

export class RevocationDto {
  @ApiProperty({ enum: REVOCATION_STATUSES, description: 'unknown: the CRL or OCSP answer could not be used (see error); never a guess.' })
  status!: RevocationStatus;
  @ApiProperty({ enum: REVOCATION_SOURCES }) source!: RevocationSource;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'revoked: when its issuer revoked it.' }) revokedAt!:
    string | null;
  @ApiProperty({ type: String, nullable: true, description: 'revoked: the RFC 5280 reason name (keyCompromise, ...), when given.' })
  reason!: string | null;
  @ApiProperty({ format: 'date-time' }) checkedAt!: string;
  @ApiProperty({ type: String, nullable: true, description: 'unknown: why, in one sentence.' }) error!: string | null;
}

export class CertificateDetailDto extends CertificateSummaryDto {
  @ApiProperty() sha1Fingerprint!: string;
  @ApiProperty() subject!: string;
  @ApiProperty({ type: String, nullable: true }) subjectOrganization!: string | null;
  @ApiProperty({ type: String, nullable: true }) subjectOrganizationalUnit!: string | null;
  @ApiProperty() issuer!: string;
  @ApiProperty({ type: String, nullable: true }) issuerOrganization!: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The issuer's fingerprint when the issuer is stored." }) issuerFingerprint!:
    string | null;
  @ApiProperty({ type: String, nullable: true }) keyCurve!: string | null;
  @ApiProperty() signatureAlgorithm!: string;
  @ApiProperty({ type: [String] }) keyUsage!: string[];
  @ApiProperty({ type: [String] }) extendedKeyUsage!: string[];
  @ApiProperty({ type: [String] }) ocspUrls!: string[];
  @ApiProperty({ type: [String] }) crlDistributionPoints!: string[];
  @ApiProperty({ type: [String] }) caIssuersUrls!: string[];
  @ApiProperty({ type: String, nullable: true }) subjectKeyId!: string | null;
  @ApiProperty({ type: String, nullable: true }) authorityKeyId!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) pathLength!: number | null;
  @ApiProperty() pem!: string;
  @ApiProperty({ type: [LinkedEndpointDto] }) currentEndpoints!: LinkedEndpointDto[];
  @ApiProperty({ type: [LinkedEndpointDto] }) historicalEndpoints!: LinkedEndpointDto[];
  @ApiProperty({
    type: RenewalInfoDto,
    nullable: true,
    description: 'The suggested renewal window its ACME CA gave, or null when none was read (docs/api-contract.md section 15).',
  })
  renewalInfo!: RenewalInfoDto | null;
  @ApiProperty({
    type: RevocationDto,
    nullable: true,
    description: 'The latest check-revocation verdict (docs/api-contract.md section 18); null when never checked.',
  })
  revocation!: RevocationDto | null;
}

export class ActiveCertificateDto extends CurrentCertificateDto {
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty() endpointName!: string;
  @ApiProperty({ enum: ENDPOINT_TYPES }) endpointType!: EndpointType;
  @ApiProperty({ type: [String], description: "The endpoint's tags." }) endpointTags!: string[];
}

export class EndpointUploadResultDto {
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ enum: CERT_USES }) certUse!: CertUse;
  @ApiProperty({
    description: 'created: a new link; reactivated: a historical link is current again; unchanged: it was already current.',
    enum: ['created', 'reactivated', 'unchanged'],
  })
  link!: 'created' | 'reactivated' | 'unchanged';
  @ApiProperty({ type: [String], description: 'Fingerprints of the current links of this use that moved to history.' }) retired!: string[];
  @ApiProperty({ type: CertificateSummaryDto, description: 'The linked certificate (the first of the upload).' })
  certificate!: CertificateSummaryDto;
  @ApiProperty({ type: [String], description: 'Every certificate of the upload, stored once each.' }) storedFingerprints!: string[];
}

export class CertificateSearchItemDto extends CertificateSummaryDto {
  @ApiProperty({ enum: ['certificate'] }) kind!: 'certificate';
}

export class EndpointSearchItemDto extends EndpointResponseDto {
  @ApiProperty({ enum: ['endpoint'] }) kind!: 'endpoint';
}
