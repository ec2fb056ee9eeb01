import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ToInteger } from '../../common/validation/decorators';
import { CallerScopeQueryDto } from '../users/caller-scope';

export const MAX_LIFETIME_BUCKETS = 20;

export class LifetimesQueryDto extends CallerScopeQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIFETIME_BUCKETS,
    default: 5,
    description: 'How many of the most common lifetimes to answer.',
  })
  @IsOptional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(MAX_LIFETIME_BUCKETS)
  limit: number = 5;
}

export class LifetimeBucketDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'notAfter − notBefore, rounded to the nearest whole day (at least 1).' })
  days!: number;
  @ApiProperty({ type: 'integer', description: 'Current, unexpired certificates in scope of that lifetime.' })
  certificates!: number;
}

export class LifetimesResponseDto {
  @ApiProperty({ type: 'integer', description: 'Current, unexpired certificates in scope, of every lifetime.' })
  certificates!: number;
  @ApiProperty({
    type: [LifetimeBucketDto],
    description: 'The most common lifetimes, most certificates first (ties: the shorter lifetime first), at most `limit`.',
  })
  lifetimes!: LifetimeBucketDto[];
}
