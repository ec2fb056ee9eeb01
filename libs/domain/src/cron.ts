// Scanner and discovery schedules: standard 5-field cron (docs/api-contract.md section 3), in UTC, parsed
// and scheduled by croner. croner reads more than standard cron (seconds and year fields,
// `@daily` nicknames, `L`, `W`, `#`, `?`); those are refused here, so a schedule means the same
// to whatever reads it: the API that stores it, this library, or a cron library elsewhere.
import { Cron, type CronOptions } from 'croner';

interface CronField {
  name: string;
  /** The values croner accepts, in words for error messages. */
  range: string;
  names?: readonly string[];
}

const FIELDS: readonly CronField[] = [
  { name: 'minute', range: '0-59' },
  { name: 'hour', range: '0-23' },
  { name: 'day of month', range: '1-31' },
  { name: 'month', range: '1-12 or JAN-DEC', names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  // 7 is Sunday as well as 0, as in Vixie cron.
  { name: 'day of week', range: '0-7 or SUN-SAT', names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

/**
 * One item of a comma-separated list in standard cron: `*`, a value or a range, each with an
 * optional step. Values are numbers or three-letter names (which croner checks against the field).
 */
const STANDARD_ITEM = /^(?:\*|(?:\d+|[a-z]{3})(?:-(?:\d+|[a-z]{3}))?)(?:\/\d+)?$/i;

const OPTIONS: CronOptions = {
  // UTC as a fixed offset: plain arithmetic, no time-zone database, no daylight-saving gaps.
  utcOffset: 0,
  mode: '5-part',
  // `5/15` (every 15 minutes from :05), which earlier versions of Certkeeper accepted and stored.
  sloppyRanges: true,
  // Day of month and day of week both restricted: either may match, as in Vixie cron.
  domAndDow: false,
  paused: true,
};

/**
 * Checks a standard 5-field cron expression (`0 * * * *`, `*\/15 9-17 * * MON-FRI`) and returns
 * the problem in words, or null when it is valid.
 */
export function cronExpressionProblem(expression: string): string | null {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== FIELDS.length || parts[0] === '') return 'must have exactly 5 fields: minute hour day-of-month month day-of-week';
  for (const [index, field] of FIELDS.entries()) {
    for (const item of parts[index].split(',')) {
      const problem = itemProblem(item, index, field);
      if (problem !== null) return `${field.name}: ${problem}`;
    }
  }
  return null;
}

/** Each item is given to croner alone, in its field's position, so the message can name it. */
function itemProblem(item: string, index: number, field: CronField): string | null {
  if (!STANDARD_ITEM.test(item)) return `"${item}" is not a value, a range or a step of standard cron`;
  const unknownName = item.match(/[a-z]{3}/gi)?.some((name) => !field.names?.includes(name.toUpperCase()));
  if (unknownName) return `"${item}" is outside ${field.range}`;
  const pattern = FIELDS.map((_, position) => (position === index ? item : '*')).join(' ');
  try {
    new Cron(pattern, OPTIONS);
    return null;
  } catch (error) {
    // croner throws RangeError for a value outside the field (its wording counts days and months
    // from 0); anything else is a TypeError whose message says what is wrong with the range or step.
    if (error instanceof RangeError) return `"${item}" is outside ${field.range}`;
    const reason = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : String(error);
    return `"${item}" is not valid: ${reason}`;
  }
}

/**
 * The first minute strictly after `after` (UTC) that the expression matches, or null when the
 * expression is invalid or never matches (`0 0 31 2 *`). Day-of-month and day-of-week combine as
 * in Vixie cron: when both are restricted, either may match.
 */
export function nextCronTime(expression: string, after: Date): Date | null {
  if (cronExpressionProblem(expression) !== null) return null;
  return new Cron(expression.trim(), OPTIONS).nextRun(after);
}
