import { BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidatorOptions } from 'class-validator';
import { Clock } from '../../common/clock';
import { compileAcceptance } from '../../common/validation/compiled-acceptance';
import { type CheckedResult, HostScanResultDto, ResultsRequestDto, SamlScanResultDto } from './scanner-protocol.dto';
import { ENVELOPE_RULES, idOf, isObject, messagesOf } from './wire-checks';

/** Agents' clocks may run a little ahead; a result from the far future would freeze the errorSince logic. */
const CLOCK_SKEW_MS = 5 * 60_000;

// Fields a newer agent adds are dropped, not refused: an older API keeps taking its results.
export const RESULT_RULES: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: false,
  forbidUnknownValues: true,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
};

// Compiled once: the envelope's rules without plainToInstance copying every result deeply first,
// and the host results', nearly all of a post and nearly always valid. What they do not accept
// is checked by class-validator, which words each problem.
const acceptedEnvelope = compileAcceptance(ResultsRequestDto);
const acceptedHostResult = compileAcceptance(HostScanResultDto);

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
    const envelope = { results: isObject(body) ? body.results : undefined };
    let request = acceptedEnvelope(envelope);
    if (!request) {
      request = plainToInstance(ResultsRequestDto, envelope);
      const problems = messagesOf(validateSync(request, ENVELOPE_RULES));
      if (problems.length > 0) throw new BadRequestException(problems);
    }
    const now = this.clock.now();
    return (request.results as unknown[]).map((raw) => checkResult(raw, now));
  }
}

/** One result, typed and valid, or refused with every problem found (one per field). Nothing an agent sends is trusted. */
export function checkResult(raw: unknown, now: Date): CheckedResult {
  const reject = (error: string): CheckedResult => ({ valid: false, ...idsOf(raw), error });
  if (!isObject(raw)) return reject('a result must be a JSON object');
  if (raw.type !== 'host' && raw.type !== 'saml') return reject('type must be host or saml');
  const scannedAt = typeof raw.scannedAt === 'string' ? Date.parse(raw.scannedAt) : Number.NaN;
  const inFuture = scannedAt > now.getTime() + CLOCK_SKEW_MS;
  const accepted = raw.type === 'host' && !inFuture ? acceptedHostResult(raw) : null;
  if (accepted) return { valid: true, result: accepted };
  const result =
    raw.type === 'host'
      ? plainToInstance(HostScanResultDto, raw, { exposeDefaultValues: true })
      : plainToInstance(SamlScanResultDto, raw, { exposeDefaultValues: true });
  const problems = messagesOf(validateSync(result, RESULT_RULES));
  if (inFuture) problems.push('scannedAt is in the future');
  return problems.length > 0 ? reject(problems.join('; ')) : { valid: true, result };
}

/** The ids of a raw result, for reporting a rejection even when the rest is malformed. */
function idsOf(raw: unknown): { resultId: string; endpointId: string } {
  return { resultId: idOf(raw, 'resultId'), endpointId: idOf(raw, 'endpointId') };
}
