import { type AcmeCa, isHttpUrl } from '@certkeeper/domain';
import { BadRequestException, type PipeTransform } from '@nestjs/common';

export const MAX_ACME_CAS = 20;
const LONGEST_NAME = 100;
const LONGEST_URL = 2048;

/**
 * The body of `PUT /settings/acme-cas`: a JSON array of at most 20 `{ name, directoryUrl }`, names
 * unique, directories http or https (docs/api-contract.md section 15). Every problem is one line.
 */
export class AcmeCasPipe implements PipeTransform<unknown, AcmeCa[]> {
  transform(body: unknown): AcmeCa[] {
    if (!Array.isArray(body)) throw new BadRequestException('The body must be a JSON array of { name, directoryUrl } objects.');
    if (body.length > MAX_ACME_CAS) throw new BadRequestException(`At most ${MAX_ACME_CAS} ACME CAs.`);
    const problems = body.flatMap((entry: unknown, index) => entryProblems(entry, index));
    const names = body.map((entry: { name?: unknown }) => (typeof entry?.name === 'string' ? entry.name.trim().toLowerCase() : null));
    names.forEach((name, index) => {
      if (name !== null && names.indexOf(name) !== index) problems.push(`[${index}].name repeats the name of [${names.indexOf(name)}]`);
    });
    if (problems.length > 0) throw new BadRequestException(problems);
    return (body as AcmeCa[]).map(({ name, directoryUrl }) => ({ name: name.trim(), directoryUrl }));
  }
}

function entryProblems(entry: unknown, index: number): string[] {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return [`[${index}] must be an object { name, directoryUrl }`];
  const { name, directoryUrl, ...rest } = entry as Record<string, unknown>;
  const problems = Object.keys(rest).map((key) => `[${index}].${key} is not a property of an ACME CA`);
  if (typeof name !== 'string' || name.trim() === '' || name.length > LONGEST_NAME)
    problems.push(`[${index}].name must be a non-empty string of at most ${LONGEST_NAME} characters`);
  if (typeof directoryUrl !== 'string' || directoryUrl.length > LONGEST_URL || !isHttpUrl(directoryUrl))
    problems.push(`[${index}].directoryUrl must be an http or https URL of at most ${LONGEST_URL} characters`);
  return problems;
}
