import type { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { WithExportFormat } from '../../common/http/csv/export-format';
import { ListWindowQueryDto, PageQueryDto } from '../../common/http/pagination';
import { IsDnsNameOrIp, IsHttpUrl, IsIpAddress, IsTagList, ToBoolean, ToInteger } from '../../common/validation/decorators';
import { FINDING_CODES, FINDING_SEVERITIES, type FindingCode, type FindingSeverity } from '@certkeeper/domain';
import { STARTTLS_PROTOCOLS, type StarttlsProtocol } from '@certkeeper/domain/protocol';
import { CERT_USES, type CertUse } from '../links/endpoint-certificate.entity';
import { ENDPOINT_TYPES, type EndpointType } from './endpoint.entity';
import { ENDPOINT_SORT_KEYS, ENDPOINT_SORTS, type EndpointSort } from './endpoint-sort';

export const MAX_TAGS = 100;

/**
 * One endpoint record as written by POST, PUT, PATCH and bulk rows. Which fields are required
 * depends on `type` and on the verb, so the service checks that; here each field is checked alone.
 */
export class EndpointInputDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'Required on create and PUT.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ enum: ENDPOINT_TYPES, default: 'host', description: 'Cannot change after creation.' })
  @IsOptional()
  @IsIn(ENDPOINT_TYPES)
  type?: EndpointType;

  @ApiPropertyOptional({ default: true, description: 'Toggles scanning only; a disabled endpoint still alerts and keeps its history.' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ default: false, description: 'Never scan, whatever `enabled` says.' })
  @IsOptional()
  @IsBoolean()
  scanExempt?: boolean;

  @ApiPropertyOptional({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'Pins a scanner; null or omitted means the default scanner. Ignored for manual.',
  })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsUUID('all', { message: 'scannerId must be a UUID or null' })
  scannerId?: string | null;

  @ApiPropertyOptional({ maxLength: 10000, default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(10000)
  notes?: string;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_TAGS, default: [], example: ['env:prod', 'team:payments'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TAGS)
  @IsTagList()
  tags?: string[];

  @ApiPropertyOptional({ description: 'host: a DNS name or an IP literal (required for host).' })
  @IsOptional()
  @IsString()
  @MaxLength(253)
  @IsDnsNameOrIp()
  dnsName?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 65535, default: 443, description: 'host only.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  port?: number;

  @ApiPropertyOptional({ nullable: true, type: String, description: 'host only: scans connect here; SNI stays dnsName.' })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsIpAddress()
  ipAddress?: string | null;

  @ApiPropertyOptional({
    enum: STARTTLS_PROTOCOLS,
    nullable: true,
    description:
      'host only: the plain-text upgrade spoken before the TLS handshake (docs/api-contract.md section 13); null (omitted on ' +
      'create and PUT) is implicit TLS. ' +
      'Ignored (read back as null) on saml and manual endpoints.',
  })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsIn(STARTTLS_PROTOCOLS, { message: `starttls must be null or one of ${STARTTLS_PROTOCOLS.join(', ')}` })
  starttls?: StarttlsProtocol | null;

  @ApiPropertyOptional({ description: 'saml: the metadata URL, http or https (required for saml).' })
  @IsOptional()
  @IsHttpUrl()
  metadataUrl?: string;

  @ApiPropertyOptional({
    type: [String],
    enum: FINDING_CODES,
    default: [],
    description: 'Finding codes hidden for this endpoint (docs/api-contract.md section 18). PUT without it ignores none.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(FINDING_CODES.length * 2)
  @IsIn(FINDING_CODES, { each: true, message: `ignoredFindings must hold only finding codes: ${FINDING_CODES.join(', ')}` })
  ignoredFindings?: FindingCode[];
}

export class EndpointListQueryDto extends WithExportFormat(PageQueryDto) {
  @ApiPropertyOptional({ enum: ENDPOINT_TYPES })
  @IsOptional()
  @IsIn(ENDPOINT_TYPES)
  type?: EndpointType;

  @ApiPropertyOptional()
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;

  @ApiPropertyOptional({ description: 'true: only endpoints whose scans are failing (errorSince set); false: only healthy ones.' })
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'has_error must be true or false' })
  has_error?: boolean;

  @ApiPropertyOptional({ type: [String], description: 'Repeatable; an endpoint matches when it has any of them.' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value))
  @IsArray()
  @ArrayMaxSize(MAX_TAGS)
  @IsTagList()
  tag?: string[];

  @ApiPropertyOptional({
    enum: [...STARTTLS_PROTOCOLS, 'none'],
    description: 'Host endpoints upgrading with this protocol; `none`: host endpoints on implicit TLS.',
  })
  @IsOptional()
  @IsIn([...STARTTLS_PROTOCOLS, 'none'], { message: `starttls must be none or one of ${STARTTLS_PROTOCOLS.join(', ')}` })
  starttls?: StarttlsProtocol | 'none';

  @ApiPropertyOptional({ description: 'Substring of name, dnsName or metadataUrl, case-insensitive.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 3650,
    description: 'Only endpoints with a current certificate expiring within this many days (daysRemaining <= it), expired ones included.',
  })
  @IsOptional()
  @ToInteger()
  @IsInt({ message: 'expires_within must be a whole number of days from 0 to 3650' })
  @Min(0, { message: 'expires_within must be a whole number of days from 0 to 3650' })
  @Max(3650, { message: 'expires_within must be a whole number of days from 0 to 3650' })
  expires_within?: number;

  @ApiPropertyOptional({ type: [String], enum: FINDING_CODES, description: 'Repeatable; an endpoint matches when it shows any of them.' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value))
  @IsArray()
  @ArrayMaxSize(FINDING_CODES.length)
  @IsIn(FINDING_CODES, { each: true, message: `finding must be one of ${FINDING_CODES.join(', ')}` })
  finding?: FindingCode[];

  @ApiPropertyOptional({ description: 'true: only endpoints showing a finding; false: only those showing none.' })
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'has_findings must be true or false' })
  has_findings?: boolean;

  @ApiPropertyOptional({
    description:
      'true: only endpoints with a current certificate superseded by a stored renewal not deployed (its `supersededBy`); ' +
      'false: only endpoints without one.',
  })
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'superseded must be true or false' })
  superseded?: boolean;

  @ApiPropertyOptional({
    enum: ENDPOINT_SORTS,
    default: 'name',
    description:
      'name: natural order ("app 2" before "app 10"), any case; daysRemaining: the soonest-expiring current certificate first, ' +
      'expired first; lastScannedAt; createdAt. A leading `-` reverses. Endpoints without a current certificate (daysRemaining) ' +
      'or never scanned (lastScannedAt) come last in both directions.',
  })
  @IsOptional()
  @IsIn(ENDPOINT_SORTS, { message: `sort must be one of ${ENDPOINT_SORT_KEYS.join(', ')}, optionally with a leading - to reverse` })
  sort: EndpointSort = 'name';
}

/** The scan history window, or with `format=csv` the whole history. */
export class ScanHistoryQueryDto extends WithExportFormat(ListWindowQueryDto) {}

/** A stored renewal not deployed in a current certificate's place (docs/api-contract.md section 16). */
export class SupersededByDto {
  @ApiProperty({ description: 'The renewal that should be deployed.' }) fingerprint!: string;
  @ApiProperty({ format: 'date-time' }) notBefore!: string;
  @ApiProperty({ format: 'date-time', description: 'When the renewal was first stored.' }) firstSeenAt!: string;
}

export class CurrentCertificateDto {
  @ApiProperty({ enum: CERT_USES }) certUse!: CertUse;
  @ApiProperty() fingerprint!: string;
  @ApiProperty({ type: String, nullable: true }) commonName!: string | null;
  @ApiProperty({ type: [String] }) sans!: string[];
  @ApiProperty({ type: String, nullable: true }) issuerCommonName!: string | null;
  @ApiProperty({ format: 'date-time' }) notBefore!: string;
  @ApiProperty({ format: 'date-time' }) notAfter!: string;
  @ApiProperty({ type: 'integer', description: 'Negative once expired.' }) daysRemaining!: number;
  @ApiProperty({ format: 'date-time' }) firstSeenAt!: string;
  @ApiProperty({ format: 'date-time' }) lastSeenAt!: string;
  @ApiProperty({
    type: SupersededByDto,
    nullable: true,
    description:
      'tls on a host endpoint: the stored renewal issued at least an hour later, for the same names, key algorithm and issuer ' +
      'organization, first stored at least `supersededAfterHours` ago, that is not deployed here; null when none. Kept per link: ' +
      'brought up to date when links, renewals or the alert policy change, and for the clock by the hourly check-revocation task.',
  })
  supersededBy!: SupersededByDto | null;
}

export class FindingDto {
  @ApiProperty({ enum: FINDING_CODES }) code!: FindingCode;
  @ApiProperty({ enum: FINDING_SEVERITIES }) severity!: FindingSeverity;
  @ApiProperty({ description: 'One sentence saying what is wrong and what to do.' }) message!: string;
}

export class EndpointResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ENDPOINT_TYPES }) type!: EndpointType;
  @ApiProperty() enabled!: boolean;
  @ApiProperty() scanExempt!: boolean;
  @ApiProperty({ format: 'uuid', type: String, nullable: true }) scannerId!: string | null;
  @ApiProperty() notes!: string;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ type: String, nullable: true }) dnsName!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) port!: number | null;
  @ApiProperty({ type: String, nullable: true }) ipAddress!: string | null;
  @ApiProperty({
    enum: STARTTLS_PROTOCOLS,
    nullable: true,
    description: 'host: the plain-text upgrade before the TLS handshake; null is implicit TLS (and always null for saml and manual).',
  })
  starttls!: StarttlsProtocol | null;
  @ApiProperty({ type: String, nullable: true }) metadataUrl!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) errorSince!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) lastScannedAt!: string | null;
  @ApiProperty({ type: String, nullable: true }) lastScanError!: string | null;
  @ApiProperty({
    format: 'date-time',
    type: String,
    nullable: true,
    description: 'The notAfter of the current certificate that expires first; null without a current certificate.',
  })
  soonestNotAfter!: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "soonestNotAfter's floor((notAfter - now) / 24 h), negative once expired; null without a current certificate.",
  })
  daysRemaining!: number | null;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: 'host: whether the chain presented at the latest successful scan was complete and ordered.',
  })
  chainComplete!: boolean | null;
  @ApiProperty({ type: String, nullable: true, description: 'host: the address the latest successful scan reached.' }) resolvedIp!:
    string | null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: 'saml: metadata of the latest successful fetch.',
  })
  samlMetadata!: Record<string, unknown> | null;
  @ApiProperty({
    type: [FindingDto],
    description: 'What is wrong with it now, critical first, less the ignored codes (docs/api-contract.md section 18).',
  })
  findings!: FindingDto[];
  @ApiProperty({ type: [String], enum: FINDING_CODES, description: 'Finding codes hidden for this endpoint.' })
  ignoredFindings!: FindingCode[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** A row of the endpoint list; its CSV export has the columns of EndpointResponseDto. */
export class EndpointListItemDto extends EndpointResponseDto {
  @ApiProperty({
    description: 'Whether a current certificate is superseded by a stored renewal not deployed (see `superseded`); not exported to CSV.',
  })
  renewalNotDeployed!: boolean;
}

/**
 * A row of the endpoint CSV export: the JSON row with its finding codes in place of the findings,
 * so the column keeps its place and holds the codes joined with `; ` (docs/api-contract.md section 18).
 */
export class EndpointCsvRowDto extends (EndpointResponseDto as Type<Omit<EndpointResponseDto, 'findings'>>) {
  // Plain string arrays: csvColumnsOf takes an enum array for an array of objects and leaves it out.
  @ApiProperty({ type: [String] }) findings!: FindingCode[];
  @ApiProperty({ type: [String] }) declare ignoredFindings: FindingCode[];
}

export class EndpointDetailResponseDto extends EndpointResponseDto {
  @ApiProperty({ type: [CurrentCertificateDto] }) currentCertificates!: CurrentCertificateDto[];
}

export class BulkRowResultDto {
  @ApiProperty({ type: 'integer' }) index!: number;
  @ApiProperty() ok!: boolean;
  @ApiProperty({ type: 'integer', description: '201, or the status the row would have had alone (400, 409).' }) status!: number;
  @ApiPropertyOptional({ type: EndpointResponseDto }) endpoint?: EndpointResponseDto;
  @ApiPropertyOptional() error?: string;
}

export class BulkResultDto {
  @ApiProperty({ type: [BulkRowResultDto] }) results!: BulkRowResultDto[];
  @ApiProperty({ type: 'integer' }) created!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
}

export class ScanHistoryRowDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'date-time' }) scannedAt!: string;
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty({ type: String, nullable: true }) resolvedIp!: string | null;
  @ApiProperty({ type: String, nullable: true }) fingerprint!: string | null;
  @ApiProperty({ type: String, nullable: true }) tlsVersion!: string | null;
  @ApiProperty({ format: 'uuid', type: String, nullable: true }) scannerId!: string | null;
}

export class TlsVersionDto {
  @ApiProperty({ enum: ['SSLv3', 'TLSv1.0', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] }) version!: string;
  @ApiProperty() supported!: boolean;
  @ApiProperty({ type: [String], description: 'IANA cipher-suite names.' }) cipherSuites!: string[];
}

export class TlsProfileResponseDto {
  @ApiProperty({ format: 'date-time' }) scannedAt!: string;
  @ApiProperty({ type: [TlsVersionDto] }) versions!: TlsVersionDto[];
  @ApiProperty({ type: String, nullable: true }) negotiatedVersion!: string | null;
  @ApiProperty({ type: String, nullable: true }) negotiatedCipherSuite!: string | null;
}

export class TagSummaryDto {
  @ApiProperty() tag!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The part before the first ":", null for a bare tag.' }) category!:
    string | null;
  @ApiProperty() value!: string;
  @ApiProperty({ type: 'integer' }) endpointCount!: number;
}
