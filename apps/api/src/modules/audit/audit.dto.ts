import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { WithExportFormat } from '../../common/http/csv/export-format';
import { PageQueryDto } from '../../common/http/pagination';
import type { AuditRow } from './audit.repository';

export class AuditQueryDto extends WithExportFormat(PageQueryDto) {
  @ApiPropertyOptional({ description: 'Only entries of this action, for example `scanner:regenerate_token`.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  action?: string;

  @ApiPropertyOptional({ description: 'Only entries about this target id.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  targetId?: string;
}

export class AuditEntryResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiProperty({ description: "The actor: a user's e-mail, `scanner:<id>` or `system`." }) actor!: string;
  @ApiProperty() action!: string;
  @ApiProperty() targetType!: string;
  @ApiProperty({ type: String, nullable: true }) targetId!: string | null;
  @ApiProperty({ type: String, nullable: true }) requestId!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) details!: Record<string, unknown>;
}

export function toAuditEntryResponse(entry: AuditRow): AuditEntryResponseDto {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    actor: entry.actor,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    requestId: entry.requestId,
    details: entry.details,
  };
}
