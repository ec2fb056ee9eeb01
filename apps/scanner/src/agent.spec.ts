import { nextRunAt } from './agent';

describe('nextRunAt', () => {
  const now = new Date('2026-11-21T14:10:30Z');

  it('is the next cron minute plus up to a tenth of the interval, at most a minute', () => {
    expect(nextRunAt('0 * * * *', now, () => 0)?.toISOString()).toBe('2026-11-21T15:00:00.000Z');
    expect(nextRunAt('0 * * * *', now, () => 0.999)?.toISOString()).toBe('2026-11-21T15:00:59.940Z');
    expect(nextRunAt('*/5 * * * *', now, () => 0.999)?.toISOString()).toBe('2026-11-21T14:15:29.970Z');
  });

  it('is null for a schedule that never fires', () => {
    expect(nextRunAt('0 0 31 2 *', now)).toBeNull();
  });
});
