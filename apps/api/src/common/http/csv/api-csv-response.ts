import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
import { PageEnvelopeDto } from '../pagination';
import { TOTAL_COUNT_HEADERS } from '../response-headers';
import { csvColumnsOf } from './csv-cells';

/**
 * The 200 response of a list route that also exports CSV: the JSON list (`page`: the
 * `{ items, totalCount, limit, offset }` envelope; `array`: a bare array, whose full size is in
 * `X-Total-Count`) as `application/json`, and the same rows as `text/csv` content of the same
 * response, its header row in the example. `csvItem` names the CSV's row type when the JSON rows
 * carry more than the export (a flag only the interactive list shows).
 */
export function ApiListOrCsvResponse(
  item: Type<unknown>,
  shape: 'page' | 'array',
  description?: string,
  csvItem: Type<unknown> = item,
): MethodDecorator {
  const items = { type: 'array', items: { $ref: getSchemaPath(item) } };
  const json =
    shape === 'page'
      ? { allOf: [{ $ref: getSchemaPath(PageEnvelopeDto) }, { type: 'object', required: ['items'], properties: { items } }] }
      : items;
  return applyDecorators(
    ApiExtraModels(PageEnvelopeDto, item),
    ApiOkResponse({
      description:
        (description ? `${description} ` : '') +
        'With `Accept: text/csv` or `format=csv`: every matching row as CSV (RFC 4180, CRLF, a header row of the JSON field names; ' +
        'arrays joined with `; `, nested objects left out, text beginning with `=`, `+`, `-`, `@`, tab or carriage return prefixed ' +
        "with `'`), streamed, as the attachment `certkeeper-<list>-<YYYY-MM-DD>.csv`.",
      ...(shape === 'array' ? { headers: TOTAL_COUNT_HEADERS } : {}),
      content: {
        'application/json': { schema: json },
        'text/csv': { schema: { type: 'string' }, example: `${csvColumnsOf(csvItem).join(',')}\r\n` },
      },
    }),
  );
}
