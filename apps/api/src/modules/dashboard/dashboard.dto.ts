import { CHANNEL_KINDS } from '@certkeeper/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ToInteger } from '../../common/validation/decorators';
import { ActiveCertificateDto } from '../certificates/certificates.dto';
import { ENDPOINT_TYPES, type EndpointType } from '../endpoints/endpoint.entity';
import { FindingDto } from '../endpoints/endpoints.dto';
import { CallerScopeQueryDto } from '../users/caller-scope';

export class DashboardQueryDto extends CallerScopeQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'Rows per panel.' })
  @IsOptional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 10;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 8760,
    default: 48,
    description: 'A scan (or, never scanned, the creation) older than this many hours is stale.',
  })
  @IsOptional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(8760)
  staleHours: number = 48;
}

export class EndpointTypeCountsDto {
  @ApiProperty({ type: 'integer' }) host!: number;
  @ApiProperty({ type: 'integer' }) saml!: number;
  @ApiProperty({ type: 'integer' }) manual!: number;
}

export class ExpiringWithinDto {
  @ApiProperty({ type: 'integer', description: 'A configured alert threshold.' }) days!: number;
  @ApiProperty({ type: 'integer', description: 'Current links not yet expired with daysRemaining <= days.' }) count!: number;
}

export class DashboardCountsDto {
  @ApiProperty({ type: 'integer', description: 'Endpoints in scope, whatever their state.' }) endpoints!: number;
  @ApiProperty({ type: EndpointTypeCountsDto }) byType!: EndpointTypeCountsDto;
  @ApiProperty({ type: 'integer', description: 'Endpoints with errorSince set (the errorEndpoints panel in full).' }) withErrors!: number;
  @ApiProperty({ type: 'integer', description: 'Endpoints whose scans are stale (the staleScans panel in full).' }) stale!: number;
  @ApiProperty({ type: 'integer', description: 'Current links (rows of GET /certificates/active), expired ones included.' })
  activeCertificates!: number;
  @ApiProperty({ type: 'integer', description: 'Current links whose certificate has expired (notAfter <= now).' }) expired!: number;
  @ApiProperty({ type: [ExpiringWithinDto], description: 'One entry per configured alert threshold, largest first.' })
  expiringWithin!: ExpiringWithinDto[];
  @ApiProperty({
    type: 'integer',
    description: "Current certificates whose ACME CA's suggested renewal window has ended (0 while the alert policy's renewalInfo is off).",
  })
  renewalOverdue!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Endpoints serving a certificate superseded by a stored renewal not deployed (GET /endpoints?superseded=true).',
  })
  renewalNotDeployed!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer', format: 'int32' },
    description: 'Endpoints showing each finding code (docs/api-contract.md section 18); codes no endpoint shows are left out.',
    example: { expired: 2, weak_key: 1 },
  })
  findings!: Record<string, number>;
}

export class FindingEndpointDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ENDPOINT_TYPES }) type!: EndpointType;
  @ApiProperty({ type: [FindingDto], description: 'Critical first.' }) findings!: FindingDto[];
}

export class ErrorEndpointDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ENDPOINT_TYPES }) type!: EndpointType;
  @ApiProperty({ format: 'date-time', description: 'The first failed scan of the current run of failures.' }) errorSince!: string;
  @ApiProperty({ type: String, nullable: true }) lastScanError!: string | null;
}

export class StaleScanDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['host', 'saml'] }) type!: EndpointType;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null: never scanned.' }) lastScannedAt!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'null: the default scanner scans it.' }) scannerId!:
    string | null;
}

export class AlertRunTotalsDto {
  @ApiProperty({ type: 'integer' }) alertsSent!: number;
  @ApiProperty({ type: 'integer', description: 'Due alerts that earlier runs had delivered.' }) alreadySent!: number;
  @ApiProperty({ type: 'integer', description: 'Not accepted by the SMTP server; the next run retries them.' }) failed!: number;
}

export class OfflineScannerDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null: it never called in.' }) lastUsedAt!: string | null;
}

export class FailingChannelDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: CHANNEL_KINDS }) kind!: string;
  @ApiProperty({ description: "Why its last attempt failed, in Certkeeper's words." }) lastError!: string;
}

export class AlertingDto {
  @ApiProperty({ description: 'Mail is enabled and configured well enough for the alert job to send.' }) mailEnabled!: boolean;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the latest alert run (hourly or POST /alerts/run, on any replica) started; null before the first.',
  })
  lastRunAt!: string | null;
  @ApiProperty({ type: AlertRunTotalsDto, nullable: true, description: "The latest run's totals; null before the first run." })
  lastRun!: AlertRunTotalsDto | null;
  @ApiProperty({
    type: 'integer',
    description: 'Deliveries that failed and wait for the next run: the failures of the latest run, each of which the next run retries.',
  })
  pendingFailures!: number;
  @ApiProperty({
    type: [OfflineScannerDto],
    description:
      'Scanners that never called in or whose lastUsedAt is older than twice the longest gap of their schedule and at least 10 minutes, by name.',
  })
  offlineScanners!: OfflineScannerDto[];
  @ApiProperty({
    type: [FailingChannelDto],
    description: 'Enabled notification channels whose last attempt failed (docs/api-contract.md section 17), by name.',
  })
  failingChannels!: FailingChannelDto[];
}

export class DashboardResponseDto {
  @ApiProperty({ type: DashboardCountsDto }) counts!: DashboardCountsDto;
  @ApiProperty({ type: [ErrorEndpointDto], description: 'Oldest error first, at most `limit` rows.' }) errorEndpoints!: ErrorEndpointDto[];
  @ApiProperty({
    type: [ActiveCertificateDto],
    description: 'Current links expiring within the largest alert threshold, expired first then soonest, at most `limit` rows.',
  })
  expiringCertificates!: ActiveCertificateDto[];
  @ApiProperty({ type: [StaleScanDto], description: 'Stalest first, at most `limit` rows.' }) staleScans!: StaleScanDto[];
  @ApiProperty({
    type: [FindingEndpointDto],
    description: 'Endpoints showing a finding, those with a critical one first, at most `limit` rows.',
  })
  findingEndpoints!: FindingEndpointDto[];
  @ApiProperty({
    type: AlertingDto,
    description: 'Whether anyone will hear of it: the same for every caller, not scoped by subscriptions.',
  })
  alerting!: AlertingDto;
}
