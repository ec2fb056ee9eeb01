import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { ToBoolean } from '../../common/validation/decorators';
import { TLS_VERSIONS } from '@certkeeper/domain';
import { TlsVersionDto } from '../endpoints/endpoints.dto';

// Documentation of the scanner protocol (libs/domain/src/scanner-protocol.ts is the source of
// the types; these classes describe them in the OpenAPI file). Requests are validated per result
// by result-validation.ts, so one bad result never fails the batch.

export class ScannerConfigDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() isDefault!: boolean;
  @ApiProperty() scanCronExpression!: string;
  @ApiProperty({ type: 'integer' }) scanConcurrency!: number;
  @ApiProperty({ type: [String], description: 'CIDR ranges to sweep (discovery).' }) discoveryNetworks!: string[];
}

export class WorkQueryDto {
  @ApiPropertyOptional({
    description: 'Only endpoints never scanned yet: agents poll this often so new endpoints are seen within a minute.',
  })
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'neverScanned must be true or false' })
  neverScanned?: boolean;
}

export class HostWorkItemDto {
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ enum: ['host'] }) type!: 'host';
  @ApiProperty() dnsName!: string;
  @ApiProperty({ type: 'integer' }) port!: number;
  @ApiProperty({ type: String, nullable: true }) ipAddress!: string | null;
  @ApiProperty({ description: 'Profile TLS versions and suites this run (none stored, or older than a day).' }) tlsProfileDue!: boolean;
}

export class SamlWorkItemDto {
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ enum: ['saml'] }) type!: 'saml';
  @ApiProperty() metadataUrl!: string;
}

export class WorkResponseDto {
  @ApiProperty({ type: 'array', items: { oneOf: [{ $ref: getSchemaPath(HostWorkItemDto) }, { $ref: getSchemaPath(SamlWorkItemDto) }] } })
  items!: (HostWorkItemDto | SamlWorkItemDto)[];
}

export class TlsProfileReportDto {
  @ApiProperty({ type: [TlsVersionDto] }) versions!: TlsVersionDto[];
  @ApiProperty({ enum: TLS_VERSIONS, nullable: true }) negotiatedVersion!: string | null;
  @ApiProperty({ type: String, nullable: true }) negotiatedCipherSuite!: string | null;
}

class ScanResultBaseDto {
  @ApiProperty({ format: 'uuid', description: 'Chosen by the agent; posting the same result again changes nothing.' }) resultId!: string;
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ format: 'date-time' }) scannedAt!: string;
  @ApiProperty() success!: boolean;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
}

export class HostScanResultDto extends ScanResultBaseDto {
  @ApiProperty({ enum: ['host'] }) type!: 'host';
  @ApiProperty({ type: String, nullable: true }) resolvedIp!: string | null;
  @ApiProperty({ enum: TLS_VERSIONS, nullable: true }) tlsVersion!: string | null;
  @ApiProperty({ type: String, nullable: true }) cipherSuite!: string | null;
  @ApiProperty({ type: Boolean, nullable: true }) authorized!: boolean | null;
  @ApiProperty({ type: String, nullable: true }) authorizationError!: string | null;
  @ApiProperty({ type: [String], description: 'PEM blocks, leaf first, as presented.' }) chain!: string[];
  @ApiPropertyOptional({ type: TlsProfileReportDto, nullable: true }) tlsProfile!: TlsProfileReportDto | null;
}

export class SamlScanResultDto extends ScanResultBaseDto {
  @ApiProperty({ enum: ['saml'] }) type!: 'saml';
  @ApiProperty({ type: String, nullable: true }) finalUrl!: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The address the document was read from (the last redirect hop); absent from older agents, read as null.',
  })
  resolvedIp?: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The metadata document; the API parses it itself.' }) document!: string | null;
  @ApiProperty({ type: String, nullable: true }) digest!: string | null;
}

export class ResultsRequestDto {
  @ApiProperty({
    type: 'array',
    maxItems: 1000,
    items: { oneOf: [{ $ref: getSchemaPath(HostScanResultDto) }, { $ref: getSchemaPath(SamlScanResultDto) }] },
  })
  results!: (HostScanResultDto | SamlScanResultDto)[];
}

export class ResultOutcomeDto {
  @ApiProperty() resultId!: string;
  @ApiProperty() endpointId!: string;
  @ApiProperty({ enum: ['accepted', 'duplicate', 'rejected'] }) status!: string;
  @ApiPropertyOptional({
    enum: [400, 403, 404],
    description: 'Why a result was rejected: malformed, not assigned to this scanner, unknown endpoint.',
  })
  code?: number;
  @ApiPropertyOptional() error?: string;
}

export class ResultsResponseDto {
  @ApiProperty({ type: [ResultOutcomeDto] }) results!: ResultOutcomeDto[];
}
