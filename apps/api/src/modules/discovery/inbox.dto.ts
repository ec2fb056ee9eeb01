import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { WithExportFormat } from '../../common/http/csv/export-format';
import { PageQueryDto } from '../../common/http/pagination';
import { IsOmittable } from '../../common/validation/decorators';
import { EndpointResponseDto } from '../endpoints/endpoints.dto';
import { INBOX_STATUSES, type InboxStatus } from './inbox.repository';

export const MAX_BULK_INBOX_IDS = 500;

export class InboxQueryDto extends WithExportFormat(PageQueryDto) {
  @ApiPropertyOptional({ enum: INBOX_STATUSES })
  @IsOptional()
  @IsIn(INBOX_STATUSES)
  status?: InboxStatus;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all')
  networkId?: string;

  @ApiPropertyOptional({ maxLength: 200, description: 'Part of the address, a host name, the common name or the fingerprint.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
}

export class InboxEntryResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) networkId!: string;
  @ApiProperty() address!: string;
  @ApiProperty({ type: 'integer' }) port!: number;
  @ApiProperty({ type: [String], description: "The address's reverse-DNS name, then the certificate's DNS SANs." }) hostnames!: string[];
  @ApiProperty({ type: String, nullable: true, description: 'SHA-256 of the leaf; null when the presented chain could not be read.' })
  fingerprint!: string | null;
  @ApiProperty({ type: String, nullable: true }) commonName!: string | null;
  @ApiProperty({ type: [String] }) sans!: string[];
  @ApiProperty({ type: String, nullable: true }) issuerCommonName!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) notAfter!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) daysRemaining!: number | null;
  @ApiProperty({
    enum: INBOX_STATUSES,
    description:
      '`promoted`: an endpoint was created from it; `dismissed`: hidden until another certificate is seen there; `tracked`: a host ' +
      'endpoint on this port names this address or last reached it; `new`: none of these.',
  })
  status!: InboxStatus;
  @ApiProperty({ format: 'uuid', type: String, nullable: true, description: 'The promoted or tracking endpoint.' })
  endpointId!: string | null;
  @ApiProperty({ format: 'date-time' }) firstSeenAt!: string;
  @ApiProperty({ format: 'date-time' }) lastSeenAt!: string;
}

export class PromoteInboxEntryDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'Default: the DNS name, with `:port` unless the port is 443.' })
  @IsOmittable()
  @IsString()
  name?: string;

  @ApiPropertyOptional({ description: 'Default: the first host name that is not a wildcard, else the address.' })
  @IsOmittable()
  @IsString()
  dnsName?: string;

  @ApiPropertyOptional({ type: [String], default: [] })
  @IsOmittable()
  @IsArray()
  tags?: string[];

  @ApiPropertyOptional({ format: 'uuid', description: 'Default: the default-scanner rule of `POST /api/v1/endpoints`.' })
  @IsOmittable()
  @IsUUID('all', { message: 'scannerId must be a UUID' })
  scannerId?: string;
}

export class InboxBulkDto {
  @ApiProperty({ enum: ['promote', 'dismiss'] })
  @IsIn(['promote', 'dismiss'])
  action!: 'promote' | 'dismiss';

  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: MAX_BULK_INBOX_IDS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_INBOX_IDS)
  @IsUUID('all', { each: true, message: 'each of ids must be a UUID' })
  ids!: string[];
}

export class InboxBulkItemDto {
  @ApiProperty({ type: 'integer', description: 'Position in `ids`.' }) index!: number;
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() ok!: boolean;
  @ApiProperty({ type: 'integer', description: 'The status the action would have answered alone: 200, 201, 400, 404 or 409.' })
  status!: number;
  @ApiPropertyOptional({ type: EndpointResponseDto, description: 'promote: the endpoint created.' }) endpoint?: EndpointResponseDto;
  @ApiPropertyOptional({ type: InboxEntryResponseDto, description: 'dismiss: the entry.' }) entry?: InboxEntryResponseDto;
  @ApiPropertyOptional() error?: string;
}

export class InboxBulkResultDto {
  @ApiProperty({ type: [InboxBulkItemDto] }) results!: InboxBulkItemDto[];
  @ApiProperty({ type: 'integer' }) succeeded!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
}
