import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsString, IsUUID, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { MAX_NETWORK_ADDRESSES } from '@certkeeper/domain/discovery';
import {
  RESULT_LIMITS,
  SWEEP_REPORT_LIMITS,
  type SweepFinding,
  type SweepReport,
  type SweepReportsRequest,
  type SweepWorkItem,
  TLS_VERSIONS,
  type TlsVersionName,
} from '@certkeeper/domain/protocol';
import { IsIpLiteral, IsNullable, IsNullableString } from '../../common/validation/decorators';
import { IsPresentedChain } from './scanner-protocol.dto';

export class SweepWorkItemDto implements SweepWorkItem {
  @ApiProperty({ format: 'uuid' }) sweepId!: string;
  @ApiProperty({ format: 'uuid' }) networkId!: string;
  @ApiProperty({ type: [String], description: 'Normalised: addresses, CIDR blocks and dash ranges.' }) ranges!: string[];
  @ApiProperty({ type: 'integer', isArray: true }) ports!: number[];
}

export class SweepFindingDto implements SweepFinding {
  @ApiProperty({ description: 'An IP address of the sweep.' })
  @IsIpLiteral('address must be an IP address')
  address!: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 65535 })
  @IsInt({ message: 'port must be an integer from 1 to 65535' })
  @Min(1, { message: 'port must be an integer from 1 to 65535' })
  @Max(65535, { message: 'port must be an integer from 1 to 65535' })
  port!: number;

  @ApiProperty({ type: String, nullable: true, description: "The address's reverse-DNS name; it was the handshake's SNI." })
  @IsNullable()
  @MaxLength(253, { message: 'reverseName must be a host name or null' })
  @IsString({ message: 'reverseName must be a host name or null' })
  reverseName!: string | null;

  @ApiProperty({ type: [String], description: 'PEM blocks, leaf first, as presented.' })
  @IsPresentedChain()
  chain!: string[];

  @ApiProperty({ enum: TLS_VERSIONS, nullable: true })
  @IsNullable()
  @IsIn(TLS_VERSIONS, { message: `tlsVersion must be one of ${TLS_VERSIONS.join(', ')} or null` })
  tlsVersion!: TlsVersionName | null;

  @ApiProperty({ type: String, nullable: true })
  @IsNullableString(RESULT_LIMITS.name, 'cipherSuite must be a string or null')
  cipherSuite!: string | null;
}

export class SweepReportDto implements SweepReport {
  @ApiProperty({ format: 'uuid', description: 'Chosen by the agent; posting the same report again changes nothing.' })
  @IsUUID('all', { message: 'reportId must be a UUID' })
  reportId!: string;

  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'sweepId must be a UUID' })
  sweepId!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Addresses whose every port is finished, so far (absolute, not a delta).' })
  @IsInt({ message: 'addressesProbed must be a whole number' })
  @Min(0, { message: 'addressesProbed must not be negative' })
  @Max(MAX_NETWORK_ADDRESSES, { message: `addressesProbed must be at most ${MAX_NETWORK_ADDRESSES}` })
  addressesProbed!: number;

  @ApiProperty({ type: [SweepFindingDto], maxItems: SWEEP_REPORT_LIMITS.findings, description: 'Services found since the last report.' })
  @ValidateNested({ each: true })
  @Type(() => SweepFindingDto)
  @ArrayMaxSize(SWEEP_REPORT_LIMITS.findings, { message: `findings holds at most ${SWEEP_REPORT_LIMITS.findings} services` })
  @IsArray({ message: 'findings must be an array' })
  findings!: SweepFindingDto[];

  @ApiProperty({ description: "The sweep's last report: it completed, or (with `error`) stopped early." })
  @IsBoolean({ message: 'final must be a boolean' })
  final!: boolean;

  @ApiProperty({ type: String, nullable: true, description: 'On a final report that stopped early, why.' })
  @IsNullableString(RESULT_LIMITS.error, `error must be a string of at most ${RESULT_LIMITS.error} characters, or null`)
  error!: string | null;
}

export class SweepReportsRequestDto implements SweepReportsRequest {
  @ApiProperty({ type: [SweepReportDto], maxItems: SWEEP_REPORT_LIMITS.reports })
  @ArrayMaxSize(SWEEP_REPORT_LIMITS.reports, { message: `At most ${SWEEP_REPORT_LIMITS.reports} reports per request.` })
  @IsArray({ message: 'The body must be { "reports": [ ... ] }.' })
  reports!: SweepReportDto[];
}

/** A report checked at the edge (SweepReportsPipe): typed and valid, or refused with every problem found. */
export type CheckedReport = { valid: true; report: SweepReport } | { valid: false; reportId: string; sweepId: string; error: string };

export class SweepReportOutcomeDto {
  @ApiProperty({ format: 'uuid' }) reportId!: string;
  @ApiProperty({ format: 'uuid' }) sweepId!: string;
  @ApiProperty({ enum: ['accepted', 'duplicate', 'rejected'] }) status!: string;
  @ApiPropertyOptional({
    type: 'integer',
    enum: [400, 403, 404, 409],
    description:
      'Why a report was rejected: 400 a malformed report or a finding outside the sweep, 403 the sweep belongs to another scanner, 404 no such sweep, ' +
      '409 the sweep is not running any more (stop sweeping it).',
  })
  code?: number;
  @ApiPropertyOptional() error?: string;
}

export class SweepReportsResponseDto {
  @ApiProperty({ type: [SweepReportOutcomeDto] }) reports!: SweepReportOutcomeDto[];
}
