import { BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidatorOptions } from 'class-validator';
import { Clock } from '../../common/clock';
import { type CheckedResult, HostScanResultDto, ResultsRequestDto, SamlScanResultDto } from './scanner-protocol.dto';
import { ENVELOPE_RULES, idOf, isObject, messagesOf } from './wire-checks';

/** Agents' clocks may run a little ahead; a result from the far future would freeze the errorSince logic. */
const CLOCK_SKEW_MS = 5 * 60_000;

// Fields a newer agent adds are dropped, not refused: an older API keeps taking its results.
const RESULT_RULES: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: false,
  forbidUnknownValues: true,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
};

/**
 * The body of POST /scanner/results, checked at the edge: the envelope as a whole (400 for the
 * request), then each result on its own against the rules of HostScanResultDto or
 * SamlScanResultDto, so a malformed result becomes a 400 outcome next to the others instead of
 * failing the batch. Bound with `@Body(ScanResultsPipe)` on a parameter the global
 * ValidationPipe leaves alone (an array type).
 */
@Injectable()
export class ScanResultsPipe implements PipeTransform<unknown, CheckedResult[]> {
  constructor(private readonly clock: Clock) {}

  transform(body: unknown): CheckedResult[] {
    const request = plainToInstance(ResultsRequestDto, { results: isObject(body) ? body.results : undefined });
    const problems = messagesOf(validateSync(request, ENVELOPE_RULES));
    if (problems.length > 0) throw new BadRequestException(problems);
    const now = this.clock.now();
    return (request.results as unknown[]).map((raw) => checkResult(raw, now));
  }
}

/** One result, typed and valid, or refused with every problem found (one per field). Nothing an agent sends is trusted. */
export function checkResult(raw: unknown, now: Date): CheckedResult {
  const reject = (error: string): CheckedResult => ({ valid: false, ...idsOf(raw), error });
  if (!isObject(raw)) return reject('a result must be a JSON object');
  if (raw.type !== 'host' && raw.type !== 'saml') return reject('type must be host or saml');
  const result =
    raw.type === 'host'
      ? plainToInstance(HostScanResultDto, raw, { exposeDefaultValues: true })
      : plainToInstance(SamlScanResultDto, raw, { exposeDefaultValues: true });
  const problems = messagesOf(validateSync(result, RESULT_RULES));
  const scannedAt = typeof raw.scannedAt === 'string' ? Date.parse(raw.scannedAt) : Number.NaN;
  if (scannedAt > now.getTime() + CLOCK_SKEW_MS) problems.push('scannedAt is in the future');
  return problems.length > 0 ? reject(problems.join('; ')) : { valid: true, result };
}

/** The ids of a raw result, for reporting a rejection even when the rest is malformed. */
function idsOf(raw: unknown): { resultId: string; endpointId: string } {
  return { resultId: idOf(raw, 'resultId'), endpointId: idOf(raw, 'endpointId') };
}
