import { BadRequestException, type PipeTransform } from '@nestjs/common';

const MAX_THRESHOLDS = 20;

/** The body of `PUT /settings/alert-thresholds`: a non-empty array of unique integers 1..3650, at most 20 (docs/api-contract.md section 6). */
export class AlertThresholdsPipe implements PipeTransform<unknown, number[]> {
  transform(body: unknown): number[] {
    const problem = thresholdsProblem(body);
    if (problem) throw new BadRequestException(problem);
    return body as number[];
  }
}

function thresholdsProblem(body: unknown): string | null {
  if (!Array.isArray(body) || body.length === 0) return 'The body must be a non-empty JSON array of day counts.';
  if (body.length > MAX_THRESHOLDS) return `At most ${MAX_THRESHOLDS} thresholds.`;
  const bad = body.findIndex((value) => !Number.isInteger(value) || (value as number) < 1 || (value as number) > 3650);
  if (bad >= 0) return `thresholds[${bad}] must be an integer from 1 to 3650`;
  if (new Set(body).size !== body.length) return 'Thresholds must be unique.';
  return null;
}
