import { BadRequestException, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { EndpointInputDto } from './endpoints.dto';

export const MAX_BULK_ROWS = 20_000;

/** One row of a bulk import: the record, or the sentence saying why the row is refused. */
export type BulkRow = EndpointInputDto | string;

/**
 * The bulk import's body: a JSON array of at most MAX_BULK_ROWS rows, each read on its own, so a
 * bad row is refused in its outcome and never blocks the others (docs/api-contract.md section 4).
 */
export class BulkRowsPipe implements PipeTransform<unknown, BulkRow[]> {
  transform(body: unknown): BulkRow[] {
    if (!Array.isArray(body)) throw new BadRequestException('The body must be a JSON array of endpoint records.');
    if (body.length > MAX_BULK_ROWS) throw new BadRequestException(`At most ${MAX_BULK_ROWS} rows per request.`);
    return body.map(readEndpointRow);
  }
}

/** The global ValidationPipe rules, applied to one row: the DTO, or the problems as one line. */
export function readEndpointRow(row: unknown): BulkRow {
  if (row === null || typeof row !== 'object' || Array.isArray(row)) return 'each row must be a JSON object';
  const input = plainToInstance(EndpointInputDto, row);
  const errors = validateSync(input, { whitelist: true, forbidNonWhitelisted: true });
  return errors.length === 0 ? input : describe(errors);
}

function describe(errors: ValidationError[]): string {
  return errors.flatMap((error) => Object.values(error.constraints ?? {})).join('; ');
}
