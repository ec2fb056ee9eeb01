import { cronExpressionProblem } from './cron';

describe('cronExpressionProblem', () => {
  it.each([
    '0 * * * *',
    '*/15 * * * *',
    '0 9-17 * * MON-FRI',
    '0 0 1,15 * *',
    '30 2 * JAN,jul 0',
    '0 0 * * 7',
    '0-59/5 0-23/2 1-31 1-12 0-6',
  ])('accepts %j', (expression) => expect(cronExpressionProblem(expression)).toBeNull());

  it.each([
    ['', 'exactly 5 fields'],
    ['* * * *', 'exactly 5 fields'],
    ['0 0 * * * *', 'exactly 5 fields'],
    ['@hourly', 'exactly 5 fields'],
    ['60 * * * *', 'minute: "60" is outside 0-59'],
    ['* 24 * * *', 'hour'],
    ['* * 0 * *', 'day of month'],
    ['* * * 13 *', 'month'],
    ['* * * * 8', 'day of week'],
    ['*/0 * * * *', 'step out of range'],
    ['5-1 * * * *', 'backwards range'],
    ['a * * * *', 'minute'],
    ['1/2/3 * * * *', 'more than one step'],
  ])('refuses %j', (expression, problem) => expect(cronExpressionProblem(expression)).toContain(problem));
});
