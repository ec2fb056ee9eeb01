import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { Response } from 'express';
import { ToInteger } from '../validation/decorators';

/**
 * The furthest a page may start. Without a bound `offset=99999999999999999999` passes as an
 * integer (1e20), overflows PostgreSQL's bigint OFFSET and becomes a 500; beyond the exact
 * integers of a double it is not even the number sent. Ten million rows is past anything a
 * client pages through; larger sets are narrowed with filters, not skipped over.
 */
export const MAX_OFFSET = 10_000_000;

/** A `limit`/`offset` query class with the given default and maximum page size. */
function LimitOffsetQuery(defaultLimit: number, maxLimit: number) {
  class LimitOffset {
    @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: maxLimit, default: defaultLimit })
    @IsOptional()
    @ToInteger()
    @IsInt()
    @Min(1)
    @Max(maxLimit)
    limit: number = defaultLimit;

    @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 })
    @IsOptional()
    @ToInteger()
    @IsInt()
    @Min(0)
    @Max(MAX_OFFSET)
    offset: number = 0;
  }
  return LimitOffset;
}

/** Paginated resources (endpoint list, search, audit log): default 50, at most 500 (docs/api-contract.md section 1). */
export class PageQueryDto extends LimitOffsetQuery(50, 500) {}

/** Bare-array lists that can grow without bound (certificates, anchors, history): default 500, at most 5000. */
export class ListWindowQueryDto extends LimitOffsetQuery(500, 5000) {}

export interface Page<T> {
  items: T[];
  totalCount: number;
  limit: number;
  offset: number;
}

export function toPage<T>(items: T[], totalCount: number, query: { limit: number; offset: number }): Page<T> {
  return { items, totalCount, limit: query.limit, offset: query.offset };
}

/** Bare-array lists always tell the client the full size in `X-Total-Count`. */
export function setTotalCount(res: Response, totalCount: number): void {
  res.setHeader('X-Total-Count', String(totalCount));
}

export class PageEnvelopeDto {
  @ApiProperty({ type: 'integer', format: 'int64' }) totalCount!: number;
  @ApiProperty({ type: 'integer' }) limit!: number;
  @ApiProperty({ type: 'integer' }) offset!: number;
}
