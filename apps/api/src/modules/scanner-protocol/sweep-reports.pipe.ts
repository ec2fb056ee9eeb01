import { BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidatorOptions } from 'class-validator';
import { type CheckedReport, SweepReportDto, SweepReportsRequestDto } from './sweep-protocol.dto';
import { ENVELOPE_RULES, idOf, isObject, messagesOf } from './wire-checks';

// A report is checked as strictly as any request body: an unknown field refuses it.
const REPORT_RULES: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
};

/**
 * The body of POST /scanner/sweep-reports, checked at the edge as ScanResultsPipe checks results:
 * the envelope as a whole (400 for the request), then each report on its own against the rules of
 * SweepReportDto, so a malformed report becomes a 400 outcome naming what is wrong (a finding by
 * its place: `findings.3.port ...`) next to the others, which are applied. Bound with
 * `@Body(SweepReportsPipe)` on a parameter the global ValidationPipe leaves alone (an array type).
 */
@Injectable()
export class SweepReportsPipe implements PipeTransform<unknown, CheckedReport[]> {
  transform(body: unknown): CheckedReport[] {
    const request = plainToInstance(SweepReportsRequestDto, { reports: isObject(body) ? body.reports : undefined });
    const problems = messagesOf(validateSync(request, ENVELOPE_RULES));
    if (problems.length > 0) throw new BadRequestException(problems);
    return (request.reports as unknown[]).map(checkReport);
  }
}

/** One report, typed and valid, or refused with every problem found (one per field). */
export function checkReport(raw: unknown): CheckedReport {
  const ids = { reportId: idOf(raw, 'reportId'), sweepId: idOf(raw, 'sweepId') };
  if (!isObject(raw)) return { valid: false, ...ids, error: 'a report must be a JSON object' };
  const report = plainToInstance(SweepReportDto, raw);
  const problems = messagesOf(validateSync(report, REPORT_RULES));
  return problems.length > 0 ? { valid: false, ...ids, error: problems.join('; ') } : { valid: true, report };
}
