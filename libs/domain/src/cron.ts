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
