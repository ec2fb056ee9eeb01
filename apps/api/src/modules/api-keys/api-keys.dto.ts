import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDate, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import type { ApiKeyEntity } from './api-key.entity';

export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      "When the key stops working; never when omitted, except for a key minted with an expiring API key, which gets that key's expiry.",
  })
  @IsOptional()
  @Type(() => Date)
  @IsDate({ message: 'expiresAt must be an ISO 8601 timestamp' })
  expiresAt?: Date;
}

export class ApiKeyResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The public part of the key, `stx_p_<keyId>_...`.' }) keyId!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) expiresAt!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) lastUsedAt!: string | null;
}

export class CreatedApiKeyResponseDto extends ApiKeyResponseDto {
  @ApiProperty({ description: 'The raw key, `stx_p_<keyId>_<secret>`. Shown once; only its hash is stored.' })
  key!: string;
}

export function toApiKeyResponse(key: ApiKeyEntity): ApiKeyResponseDto {
  return {
    id: key.id,
    name: key.name,
    keyId: key.keyId,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  };
}
