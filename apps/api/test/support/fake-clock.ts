import { Clock } from '../../src/common/clock';

/** A clock the test moves by hand. Starts at the real current time unless told otherwise. */
export class FakeClock extends Clock {
  private current: number;

  constructor(start: Date = new Date()) {
    super();
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(milliseconds: number): void {
    this.current += milliseconds;
  }

  set(date: Date): void {
    this.current = date.getTime();
  }
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * `days` whole days from the clock's now, rounded up to the whole second a certificate keeps: at
 * that clock, `daysRemaining` reads exactly `days`. Rounding down, or starting from the wall
 * clock after the application's clock was taken, can make it read one day less.
 */
export function daysFrom(clock: Clock, days: number): Date {
  return new Date(Math.ceil((clock.now().getTime() + days * DAY) / SECOND) * SECOND);
}
