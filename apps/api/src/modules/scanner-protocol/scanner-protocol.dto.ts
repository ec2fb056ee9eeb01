import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  type HostScanResult,
  type HostWorkItem,
  MAX_RESULTS_PER_POST,
  MAX_WORK_WAIT_SECONDS,
  RESULT_LIMITS,
  type ResultsRequest,
  type SamlScanResult,
  type SamlWorkItem,
  type ScannerConfig,
  type ScanResult,
  STARTTLS_PROTOCOLS,
  type StarttlsProtocol,
  type SweepWorkItem,
  TLS_VERSIONS,
  type TlsProfile,
  type TlsVersionName,
  type TlsVersionSupport,
  type WorkResponse,
} from '@certkeeper/domain/protocol';
import { IsIpLiteral, IsNullableString, ToBoolean } from '../../common/validation/decorators';
import { TlsVersionDto } from '../endpoints/endpoints.dto';

// The scanner protocol. libs/domain/src/scanner-protocol.ts is the source of the types; these
// classes implement them (so a change there fails the type check here), describe them in the
// OpenAPI file and, for results, carry the rules ScanResultsPipe checks each result against on
// its own, so one bad result never fails the batch. A property reports its first failing rule
// only, and rules run from the one nearest the property upwards: the type rule sits nearest.

/** null passes; anything else must pass the property's other rules. */
const Nullable = () => ValidateIf((_object: object, value: unknown) => value !== null);

/** A timestamp Date.parse reads. How far ahead of the API's clock it may be is ScanResultsPipe's check: it needs the clock. */
function IsTimestamp(message: string): PropertyDecorator {
  return ValidateBy(
    { name: 'isTimestamp', validator: { validate: (value: unknown) => typeof value === 'string' && !Number.isNaN(Date.parse(value)) } },
    { message },
  );
}

/** A rule across fields: when the result's `success` is `success`, the property must pass `holds`. */
function WhenSuccessIs(success: boolean, holds: (value: unknown) => boolean, message: string): PropertyDecorator {
  return ValidateBy(
    {
      name: `whenSuccessIs${success}`,
      validator: { validate: (value: unknown, args) => (args?.object as { success?: unknown }).success !== success || holds(value) },
    },
    { message },
  );
}

export class ScannerConfigDto implements ScannerConfig {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() isDefault!: boolean;
  @ApiProperty() scanCronExpression!: string;
  @ApiProperty({ type: 'integer' }) scanConcurrency!: number;
  @ApiProperty({ type: [String], description: 'The ranges of the enabled discovery networks this scanner sweeps; sweeps arrive as work.' })
  discoveryNetworks!: string[];
}

export class WorkQueryDto {
  @ApiPropertyOptional({
    description:
      'Only the work due now: endpoints never scanned yet, and those with a pending scan request (`POST /api/v1/endpoints/{id}/scan`).',
  })
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'neverScanned must be true or false' })
  neverScanned?: boolean;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_WORK_WAIT_SECONDS,
    default: 0,
    description:
      'With `neverScanned=true`: a long-poll. When nothing is due, the answer is held for up to this many seconds and given as soon ' +
      'as work becomes due (an endpoint created, a scan requested, on any API replica); empty at the deadline. The agent holds one ' +
      'such poll at a time; a scanner holding several already is answered at once.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'wait must be a number of seconds' })
  @Min(0)
  @Max(MAX_WORK_WAIT_SECONDS)
  wait?: number;
}

export class HostWorkItemDto implements HostWorkItem {
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ enum: ['host'] }) type!: 'host';
  @ApiProperty() dnsName!: string;
  @ApiProperty({ type: 'integer' }) port!: number;
  @ApiProperty({ type: String, nullable: true }) ipAddress!: string | null;
  @ApiProperty({ description: 'Profile TLS versions and suites this run (none stored, or older than a day).' }) tlsProfileDue!: boolean;
  @ApiProperty({
    enum: STARTTLS_PROTOCOLS,
    nullable: true,
    description: 'The plain-text upgrade to speak before every ClientHello, the profile included; null: implicit TLS.',
  })
  starttls!: StarttlsProtocol | null;
}

export class SamlWorkItemDto implements SamlWorkItem {
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ enum: ['saml'] }) type!: 'saml';
  @ApiProperty() metadataUrl!: string;
}

export class WorkResponseDto implements WorkResponse {
  @ApiProperty({ type: 'array', items: { oneOf: [{ $ref: getSchemaPath(HostWorkItemDto) }, { $ref: getSchemaPath(SamlWorkItemDto) }] } })
  items!: (HostWorkItemDto | SamlWorkItemDto)[];
  @ApiProperty({
    type: 'array',
    // By name: SweepWorkItemDto's file imports this one (the controller registers its schema).
    items: { $ref: getSchemaPath('SweepWorkItemDto') },
    description: 'Queued discovery sweeps of networks assigned to the caller, oldest first.',
  })
  sweeps!: SweepWorkItem[];
}

const SUITES_RULE = `cipherSuites must be an array of at most ${RESULT_LIMITS.suites} strings of at most ${RESULT_LIMITS.name} characters`;

/**
 * A version of a reported TLS profile. The OpenAPI file documents it as TlsVersionDto, the shape
 * GET /endpoints/{id}/tls-profile answers with, so both directions share one schema.
 */
export class TlsVersionReportDto implements TlsVersionSupport {
  @IsIn(TLS_VERSIONS, { message: `version must be one of ${TLS_VERSIONS.join(', ')}` }) version!: TlsVersionName;
  @IsBoolean({ message: 'supported must be a boolean' }) supported!: boolean;
  @MaxLength(RESULT_LIMITS.name, { each: true, message: SUITES_RULE })
  @IsString({ each: true, message: SUITES_RULE })
  @ArrayMaxSize(RESULT_LIMITS.suites, { message: SUITES_RULE })
  @IsArray({ message: SUITES_RULE })
  cipherSuites!: string[];
}

export class TlsProfileReportDto implements TlsProfile {
  @ApiProperty({ type: [TlsVersionDto] })
  @ValidateNested({ each: true })
  @IsObject({ each: true, message: 'versions must be an array of { version, supported, cipherSuites }' })
  @IsArray({ message: 'versions must be an array of { version, supported, cipherSuites }' })
  @Type(() => TlsVersionReportDto)
  versions!: TlsVersionReportDto[];
  @ApiProperty({ enum: TLS_VERSIONS, nullable: true })
  @Nullable()
  @IsIn(TLS_VERSIONS, { message: `negotiatedVersion must be one of ${TLS_VERSIONS.join(', ')} or null` })
  negotiatedVersion!: TlsVersionName | null;
  @ApiProperty({ type: String, nullable: true })
  @IsNullableString(RESULT_LIMITS.name, 'negotiatedCipherSuite must be a string or null')
  negotiatedCipherSuite!: string | null;
}

class ScanResultBaseDto {
  @ApiProperty({ format: 'uuid', description: 'Chosen by the agent; posting the same result again changes nothing.' })
  @IsUUID('loose', { message: 'resultId must be a UUID' })
  resultId!: string;
  @ApiProperty({ format: 'uuid' }) @IsUUID('loose', { message: 'endpointId must be a UUID' }) endpointId!: string;
  @ApiProperty({ format: 'date-time' }) @IsTimestamp('scannedAt must be an ISO 8601 timestamp') scannedAt!: string;
  @ApiProperty() @IsBoolean({ message: 'success must be a boolean' }) success!: boolean;
  @ApiProperty({ type: String, nullable: true })
  @WhenSuccessIs(false, (error) => typeof error === 'string' && error.length > 0, 'a failed result must say why in error')
  @IsNullableString(RESULT_LIMITS.error, `error must be a string of at most ${RESULT_LIMITS.error} characters, or null`)
  error!: string | null;
}

const CHAIN_RULE = `chain must be an array of at most ${RESULT_LIMITS.chain} PEM strings`;

/** A presented chain as agents report it, from a scan or a sweep: PEM strings, bounded in count and size. */
export function IsPresentedChain(): PropertyDecorator {
  return applyDecorators(
    MaxLength(RESULT_LIMITS.pem, { each: true, message: CHAIN_RULE }),
    IsString({ each: true, message: CHAIN_RULE }),
    ArrayMaxSize(RESULT_LIMITS.chain, { message: CHAIN_RULE }),
    IsArray({ message: CHAIN_RULE }),
  );
}

export class HostScanResultDto extends ScanResultBaseDto implements HostScanResult {
  @ApiProperty({ enum: ['host'] }) @IsIn(['host']) type!: 'host';
  @ApiProperty({ type: String, nullable: true })
  @Nullable()
  @IsIpLiteral('resolvedIp must be an IP address or null')
  resolvedIp!: string | null;
  @ApiProperty({ enum: TLS_VERSIONS, nullable: true })
  @Nullable()
  @IsIn(TLS_VERSIONS, { message: `tlsVersion must be one of ${TLS_VERSIONS.join(', ')} or null` })
  tlsVersion!: TlsVersionName | null;
  @ApiProperty({ type: String, nullable: true })
  @IsNullableString(RESULT_LIMITS.name, 'cipherSuite must be a string or null')
  cipherSuite!: string | null;
  @ApiProperty({ type: Boolean, nullable: true })
  @Nullable()
  @IsBoolean({ message: 'authorized must be a boolean or null' })
  authorized!: boolean | null;
  @ApiProperty({ type: String, nullable: true })
  @IsNullableString(RESULT_LIMITS.error, 'authorizationError must be a string or null')
  authorizationError!: string | null;
  @ApiProperty({ type: [String], description: 'PEM blocks, leaf first, as presented.' })
  @WhenSuccessIs(true, (chain) => Array.isArray(chain) && chain.length > 0, 'a successful host result must carry the presented chain')
  @IsPresentedChain()
  chain!: string[];
  /** Absent reads as null. */
  @ApiPropertyOptional({ type: TlsProfileReportDto, nullable: true })
  @IsOptional()
  @ValidateNested()
  @IsObject({
    message: 'tlsProfile must be { versions: [{ version, supported, cipherSuites }], negotiatedVersion, negotiatedCipherSuite }',
  })
  @Type(() => TlsProfileReportDto)
  tlsProfile: TlsProfileReportDto | null = null;
}

export class SamlScanResultDto extends ScanResultBaseDto implements SamlScanResult {
  @ApiProperty({ enum: ['saml'] }) @IsIn(['saml']) type!: 'saml';
  @ApiProperty({ type: String, nullable: true })
  @IsNullableString(RESULT_LIMITS.url, 'finalUrl must be a string or null')
  finalUrl!: string | null;
  /** Absent (agents older than the field) reads as null. */
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The address the document was read from (the last redirect hop); absent from older agents, read as null.',
  })
  @IsOptional()
  @IsIpLiteral('resolvedIp must be an IP address or null')
  resolvedIp: string | null = null;
  @ApiProperty({ type: String, nullable: true, description: 'The metadata document; the API parses it itself.' })
  @WhenSuccessIs(true, (document) => typeof document === 'string', 'a successful saml result must carry the document')
  @IsNullableString(RESULT_LIMITS.document, 'document must be a string or null')
  document!: string | null;
  @ApiProperty({ type: String, nullable: true })
  @Nullable()
  @Matches(/^[0-9a-f]{64}$/i, { message: 'digest must be a SHA-256 hex string or null' })
  digest!: string | null;
}

/** The envelope only: each result is checked on its own (ScanResultsPipe), so none is nested here. */
export class ResultsRequestDto implements ResultsRequest {
  @ApiProperty({
    type: 'array',
    maxItems: MAX_RESULTS_PER_POST,
    items: { oneOf: [{ $ref: getSchemaPath(HostScanResultDto) }, { $ref: getSchemaPath(SamlScanResultDto) }] },
  })
  @ArrayMaxSize(MAX_RESULTS_PER_POST, { message: `At most ${MAX_RESULTS_PER_POST} results per request.` })
  @IsArray({ message: 'The body must be { "results": [ ... ] }.' })
  results!: (HostScanResultDto | SamlScanResultDto)[];
}

/** A result of a post as ScanResultsPipe hands it on: typed and valid, or refused (400) with the ids it carried and why. */
export type CheckedResult = { valid: true; result: ScanResult } | { valid: false; resultId: string; endpointId: string; error: string };

export class ResultOutcomeDto {
  @ApiProperty() resultId!: string;
  @ApiProperty() endpointId!: string;
  @ApiProperty({ enum: ['accepted', 'duplicate', 'rejected'] }) status!: string;
  @ApiPropertyOptional({
    type: 'integer',
    enum: [400, 403, 404],
    description: 'Why a result was rejected: malformed, not assigned to this scanner, unknown endpoint.',
  })
  code?: number;
  @ApiPropertyOptional() error?: string;
}

export class ResultsResponseDto {
  @ApiProperty({ type: [ResultOutcomeDto] }) results!: ResultOutcomeDto[];
}
