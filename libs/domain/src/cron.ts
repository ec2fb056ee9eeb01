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

// Matching days are read over at least this span (every monthly pattern), and on for up to 8
// years until a second one is found (a February 29th).
const SPAN_DAYS = 400;
const MAX_DAYS = 8 * 366;
// A fixed Monday in a leap year: the same expression always gives the same answer.
const GAP_REFERENCE = new Date('2024-01-01T00:00:00Z').getTime();
const MINUTE_MS = 60_000;
const DAY_MINUTES = 24 * 60;
const longestGaps = new Map<string, number | null>();

/**
 * The longest time in milliseconds between two consecutive runs of the expression (UTC), or null
 * when it is invalid or runs at most once (`0 0 31 2 *` never does). Remembered per expression.
 *
 * Every matching day has the same times of day, so the longest gap is either between two times of
 * one day or from the last time of a matching day to the first of the next one. So the minutes,
 * hours and days are matched each on their own (60 + 24 + at least 400 checks) rather than every
 * run of a year found, which for an every-minute schedule is over half a million runs.
 */
export function longestCronGapMs(expression: string): number | null {
  const key = expression.trim();
  if (!longestGaps.has(key)) {
    if (longestGaps.size >= 1000) longestGaps.clear();
    longestGaps.set(key, cronExpressionProblem(key) === null ? longestGap(key.split(/\s+/)) : null);
  }
  return longestGaps.get(key)!;
}

function longestGap([minute, hour, dayOfMonth, month, dayOfWeek]: string[]): number | null {
  const minutes = matchingSteps(`${minute} 0 * * *`, 1, () => 60);
  const hours = matchingSteps(`0 ${hour} * * *`, 60, () => 24);
  const days = matchingSteps(`0 0 ${dayOfMonth} ${month} ${dayOfWeek}`, DAY_MINUTES, (found) => (found.length < 2 ? MAX_DAYS : SPAN_DAYS));
  const times = hours.flatMap((h) => minutes.map((m) => h + m));
  if (times.length === 0 || days.length === 0 || (days.length === 1 && times.length === 1)) return null;
  let longest = 0;
  for (let i = 1; i < times.length; i += 1) longest = Math.max(longest, times[i] - times[i - 1]);
  // From the last time of one matching day to the first time of the next.
  const dayLength = times[times.length - 1] - times[0];
  for (let i = 1; i < days.length; i += 1) longest = Math.max(longest, days[i] - days[i - 1] - dayLength);
  return longest * MINUTE_MS;
}

/**
 * The offsets in minutes from the reference, in steps of `stepMinutes`, at which `pattern`
 * matches; `steps` says how many to check given what was found so far.
 */
function matchingSteps(pattern: string, stepMinutes: number, steps: (found: number[]) => number): number[] {
  const cron = new Cron(pattern, OPTIONS);
  const found: number[] = [];
  for (let step = 0; step < steps(found); step += 1) {
    const offset = step * stepMinutes;
    if (cron.match(new Date(GAP_REFERENCE + offset * MINUTE_MS))) found.push(offset);
  }
  return found;
}
