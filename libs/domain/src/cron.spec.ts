import { cronExpressionProblem, longestCronGapMs, nextCronTime } from './cron';

describe('cronExpressionProblem', () => {
  it.each([
    '0 * * * *',
    '*/15 * * * *',
    '0 9-17 * * MON-FRI',
    '0 0 1,15 * *',
    '30 2 * JAN,jul 0',
    '0 0 * * 7',
    '0-59/5 0-23/2 1-31 1-12 0-6',
    '5/15 * * * *',
    '0 0 * * MON-SUN',
  ])('accepts %j', (expression) => expect(cronExpressionProblem(expression)).toBeNull());

  it.each([
    ['', 'exactly 5 fields'],
    ['* * * *', 'exactly 5 fields'],
    ['0 0 * * * *', 'exactly 5 fields'],
    ['@hourly', 'exactly 5 fields'],
    ['0 0 1 1 * 2030', 'exactly 5 fields'],
    ['60 * * * *', 'minute: "60" is outside 0-59'],
    ['* 24 * * *', 'hour'],
    ['* * 0 * *', 'day of month'],
    ['* * * 13 *', 'month'],
    ['* * * * 8', 'day of week'],
    ['* * * FOO *', 'month: "FOO" is outside 1-12 or JAN-DEC'],
    ['* * * SUN *', 'month: "SUN" is outside'],
    ['JAN * * * *', 'minute: "JAN" is outside 0-59'],
    ['0 0 * * FRI-MON', 'day of week: "FRI-MON" is not valid: From value is larger than to value'],
    ['*/0 * * * *', 'minute: "*/0" is not valid: Syntax error, illegal stepping'],
    ['*/61 * * * *', 'minute: "*/61" is not valid'],
    ['5-1 * * * *', 'minute: "5-1" is not valid: From value is larger than to value'],
    ['a * * * *', 'minute: "a" is not a value, a range or a step'],
    ['1/2/3 * * * *', 'minute: "1/2/3" is not a value, a range or a step'],
    ['/5 * * * *', 'minute: "/5" is not a value'],
    // croner's extensions of standard cron.
    ['0 0 L * *', 'day of month: "L" is not a value'],
    ['0 0 15W * *', 'day of month: "15W" is not a value'],
    ['0 0 * * FRI#2', 'day of week: "FRI#2" is not a value'],
    ['0 0 * * 5L', 'day of week: "5L" is not a value'],
    ['0 0 ? * *', 'day of month: "?" is not a value'],
    ['0 0 * * +MON', 'day of week: "+MON" is not a value'],
  ])('refuses %j', (expression, problem) => expect(cronExpressionProblem(expression)).toContain(problem));
});

describe('nextCronTime', () => {
  const at = (iso: string) => new Date(iso);
  it.each([
    ['0 * * * *', '2026-11-21T14:10:30Z', '2026-11-21T15:00:00.000Z'],
    ['0 * * * *', '2026-11-21T15:00:00Z', '2026-11-21T16:00:00.000Z'],
    ['*/15 * * * *', '2026-11-21T14:10:00Z', '2026-11-21T14:15:00.000Z'],
    ['30 2 * * *', '2026-11-21T14:10:00Z', '2026-11-22T02:30:00.000Z'],
    ['0 9 * * MON-FRI', '2026-11-21T14:10:00Z', '2026-11-23T09:00:00.000Z'],
    ['0 0 1 * *', '2026-11-21T00:00:00Z', '2026-12-01T00:00:00.000Z'],
    ['0 0 * * 7', '2026-11-21T00:00:00Z', '2026-11-22T00:00:00.000Z'],
    ['0 0 13 * 5', '2026-11-21T00:00:00Z', '2026-11-27T00:00:00.000Z'],
    ['5/15 * * * *', '2026-11-21T14:10:00Z', '2026-11-21T14:20:00.000Z'],
    ['0 0 29 2 *', '2026-11-21T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    ['0 * * * *', '2026-11-21T14:59:59.999Z', '2026-11-21T15:00:00.000Z'],
  ])('%s after %s is %s', (expression, after, next) => {
    expect(nextCronTime(expression, at(after))?.toISOString()).toBe(next);
  });

  it('is null for an expression that never fires or is invalid', () => {
    expect(nextCronTime('0 0 31 2 *', at('2026-01-01T00:00:00Z'))).toBeNull();
    expect(nextCronTime('nonsense', at('2026-01-01T00:00:00Z'))).toBeNull();
    // croner would schedule these; the contract's cron does not.
    expect(nextCronTime('@hourly', at('2026-01-01T00:00:00Z'))).toBeNull();
    expect(nextCronTime('0 0 L * *', at('2026-01-01T00:00:00Z'))).toBeNull();
  });
});

describe('longestCronGapMs', () => {
  const MINUTE = 60_000;
  const HOUR = 60 * MINUTE;
  const DAY = 24 * HOUR;
  it.each([
    ['*/5 * * * *', 5 * MINUTE],
    ['0 * * * *', HOUR],
    ['0 2 * * *', DAY],
    ['0 3 * * SUN', 7 * DAY],
    // Business hours on weekdays: Friday 17:45 to Monday 09:00.
    ['*/15 9-17 * * MON-FRI', 2 * DAY + 15 * HOUR + 15 * MINUTE],
    ['0 0 1 * *', 31 * DAY],
    ['0 0 29 2 *', (3 * 365 + 366) * DAY],
  ])('%s: %i ms', (expression, gap) => expect(longestCronGapMs(expression)).toBe(gap));

  it.each(['0 0 31 2 *', 'not cron'])('is null for %j, which never runs', (expression) => expect(longestCronGapMs(expression)).toBeNull());
});
