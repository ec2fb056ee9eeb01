import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** A key's count after a reservation, and when its window began. */
export interface Reservation {
  key: string;
  attempts: number;
  windowStartedAt: Date;
}

/** The `login_throttle` rows: one counter per key in a fixed window (docs/decisions/0009). */
@Injectable()
export class LoginThrottleRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * One attempt more for `key`, atomically: a window that began at or before `windowStart` has
   * passed and restarts at `now` with this attempt; the count saturates at `ceiling`.
   */
  async reserve(key: string, now: Date, windowStart: Date, ceiling: number): Promise<Reservation> {
    const rows = await this.dataSource.query<Reservation[]>(
      `INSERT INTO login_throttle AS throttle (key, window_started_at, attempts) VALUES ($1, $2, 1)
       ON CONFLICT (key) DO UPDATE SET
         window_started_at = CASE WHEN throttle.window_started_at <= $3 THEN excluded.window_started_at ELSE throttle.window_started_at END,
         attempts = CASE WHEN throttle.window_started_at <= $3 THEN 1 ELSE LEAST(throttle.attempts + 1, $4) END
       RETURNING key, attempts, window_started_at AS "windowStartedAt"`,
      [key, now, windowStart, ceiling],
    );
    return rows[0];
  }

  /** Gives back one attempt (one that turned out to be a success, or was never made). */
  async release(key: string): Promise<void> {
    await this.dataSource.query('UPDATE login_throttle SET attempts = attempts - 1 WHERE key = $1 AND attempts > 0', [key]);
  }

  async reset(key: string): Promise<void> {
    await this.dataSource.query('DELETE FROM login_throttle WHERE key = $1', [key]);
  }

  /** Deletes the windows that began at or before `windowStart`: they have passed. */
  async deletePassed(windowStart: Date): Promise<number> {
    const [, deleted] = await this.dataSource.query<[unknown[], number]>('DELETE FROM login_throttle WHERE window_started_at <= $1', [
      windowStart,
    ]);
    return deleted;
  }
}
