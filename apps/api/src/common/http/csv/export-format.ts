import { createParamDecorator, type ExecutionContext, type Type } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import type { Request } from 'express';

export const EXPORT_FORMATS = ['json', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * Adds the `format` query parameter (`json` or `csv`; anything else is 400 through the global
 * ValidationPipe) to a list route's query DTO.
 */
export function WithExportFormat<TBase extends Type<object>>(Base: TBase) {
  class ExportFormatQuery extends Base {
    @ApiPropertyOptional({
      enum: EXPORT_FORMATS,
      description:
        '`csv`: every matching row as `text/csv` (as `Accept: text/csv` asks), `limit` and `offset` ignored; `json` (the default): ' +
        'the JSON list, whatever `Accept` says.',
    })
    @IsOptional()
    @IsIn(EXPORT_FORMATS)
    format?: ExportFormat;
  }
  return ExportFormatQuery;
}

/**
 * The representation a list request asks for: `?format=` decides when given, else an `Accept`
 * header that prefers `text/csv` to `application/json` (`*` and a missing header mean JSON, as
 * before CSV existed). A bad `format` never gets this far: the query DTO refuses it.
 */
export function negotiateExportFormat(req: Pick<Request, 'query' | 'accepts'>): ExportFormat {
  const format = req.query.format;
  if (format === 'csv' || format === 'json') return format;
  return req.accepts(['application/json', 'text/csv']) === 'text/csv' ? 'csv' : 'json';
}

/** The negotiated ExportFormat of the request, as a handler parameter. */
export const RequestedFormat = createParamDecorator((_data: unknown, context: ExecutionContext): ExportFormat => {
  return negotiateExportFormat(context.switchToHttp().getRequest<Request>());
});
