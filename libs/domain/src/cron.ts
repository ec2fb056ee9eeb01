interface CronField {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

// minute hour day-of-month month day-of-week; 7 is Sunday as well as 0, as in Vixie cron.
const FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 7, names: WEEKDAYS },
];

/**
 * Checks a standard 5-field cron expression (`0 * * * *`, `*\/15 9-17 * * MON-FRI`) and returns
 * the problem in words, or null when it is valid. Seconds fields and `@hourly` macros are refused
 * so that every agent, whatever its cron library, reads the schedule the same way.
 */
export function cronExpressionProblem(expression: string): string | null {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== FIELDS.length || parts[0] === '') return 'must have exactly 5 fields: minute hour day-of-month month day-of-week';
  for (const [index, field] of FIELDS.entries()) {
    const problem = fieldProblem(parts[index], field);
    if (problem) return `${field.name}: ${problem}`;
  }
  return null;
}

function fieldProblem(text: string, field: CronField): string | null {
  for (const item of text.split(',')) {
    const [range, step, extra] = item.split('/');
    if (extra !== undefined) return `"${item}" has more than one step`;
    if (step !== undefined && !/^\d+$/.test(step)) return `"${item}" has a step that is not a positive integer`;
    if (step !== undefined && (Number(step) < 1 || Number(step) > field.max)) return `"${item}" has a step out of range`;
    if (range === '*') continue;
    const bounds = range.split('-');
    if (bounds.length > 2) return `"${item}" is not a value or a range`;
    const values = bounds.map((bound) => valueOf(bound, field));
    if (values.some((value) => value === null)) return `"${item}" is outside ${field.min}-${field.max}`;
    if (values.length === 2 && (values[0] as number) > (values[1] as number)) return `"${item}" is a backwards range`;
  }
  return null;
}

function valueOf(text: string, field: CronField): number | null {
  const named = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return field.name === 'month' ? named + 1 : named;
  if (!/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value >= field.min && value <= field.max ? value : null;
}

/** The set of allowed values of each field, from an expression that cronExpressionProblem accepts. */
function expand(expression: string): Set<number>[] {
  return expression
    .trim()
    .split(/\s+/)
    .map((text, index) => {
      const field = FIELDS[index];
      const values = new Set<number>();
      for (const item of text.split(',')) {
        const [range, stepText] = item.split('/');
        const step = stepText === undefined ? 1 : Number(stepText);
        const [from, to] =
          range === '*'
            ? [field.min, field.max]
            : (() => {
                const bounds = range.split('-').map((bound) => valueOf(bound, field) as number);
                return [bounds[0], bounds[1] ?? (stepText === undefined ? bounds[0] : field.max)];
              })();
        for (let value = from; value <= to; value += step) values.add(value);
      }
      // Day-of-week 7 is Sunday too.
      if (field.name === 'day of week' && values.has(7)) values.add(0);
      return values;
    });
}

const MINUTE_MS = 60_000;
const SEARCH_LIMIT_MINUTES = 366 * 24 * 60 * 5;

/**
 * The first minute strictly after `after` (UTC) that the expression matches, or null when none
 * does within five years (`0 0 31 2 *`). Day-of-month and day-of-week combine as in Vixie cron:
 * when both are restricted, either may match.
 */
export function nextCronTime(expression: string, after: Date): Date | null {
  if (cronExpressionProblem(expression) !== null) return null;
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = expand(expression);
  const [, , domText, , dowText] = expression.trim().split(/\s+/);
  const domRestricted = domText !== '*';
  const dowRestricted = dowText !== '*';
  let candidate = Math.floor(after.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  for (let i = 0; i < SEARCH_LIMIT_MINUTES; i += 1, candidate += MINUTE_MS) {
    const date = new Date(candidate);
    if (!months.has(date.getUTCMonth() + 1) || !hours.has(date.getUTCHours()) || !minutes.has(date.getUTCMinutes())) continue;
    const domMatch = daysOfMonth.has(date.getUTCDate());
    const dowMatch = daysOfWeek.has(date.getUTCDay());
    const dayMatch = domRestricted && dowRestricted ? domMatch || dowMatch : domMatch && dowMatch;
    if (dayMatch) return date;
  }
  return null;
}
