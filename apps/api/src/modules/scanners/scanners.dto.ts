import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { IsCronExpression, IsOmittable } from '../../common/validation/decorators';
import { DEFAULT_SCAN_CONCURRENCY, DEFAULT_SCAN_CRON } from './scanner.entity';

class ScannerSettingsDto {
  @ApiPropertyOptional({ default: DEFAULT_SCAN_CRON, description: 'A 5-field cron expression.' })
  @IsOmittable()
  @IsCronExpression()
  scanCronExpression?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 256,
    default: DEFAULT_SCAN_CONCURRENCY,
    description: 'Endpoints probed in parallel.',
  })
  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(256)
  scanConcurrency?: number;
}

/** POST and PUT: the name is required; omitted settings take their defaults. */
export class CreateScannerDto extends ScannerSettingsDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;
}

/** PATCH: changes only what it names. */
export class PatchScannerDto extends ScannerSettingsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;
}

export class ScannerResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() isDefault!: boolean;
  @ApiProperty() scanCronExpression!: string;
  @ApiProperty({ type: 'integer' }) scanConcurrency!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) lastUsedAt!: string | null;
  @ApiProperty({
    description:
      'false when it never called in or its lastUsedAt is older than twice the longest gap of its scan schedule and at least 10 minutes.',
  })
  online!: boolean;
}

export class ScannerWithTokenResponseDto extends ScannerResponseDto {
  @ApiProperty({ description: 'The raw scanner token (`stx_s_...`). Shown once; only its hash is stored.' })
  token!: string;
}
