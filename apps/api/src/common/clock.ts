/**
 * The application's notion of "now". Everything time-dependent (token expiry, later alert
 * buckets) asks the clock, so tests can move time without touching the system clock.
 */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
