import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { RetryLaterException } from '../../common/http/retry-later.exception';
import { LoginThrottleRepository } from './login-throttle.repository';

/**
 * docs/api-contract.md section 10: 10 failures for one account from one client address, or 100
 * from one client address, in 15 minutes.
 */
export const ACCOUNT_FAILURE_LIMIT = 10;
export const ADDRESS_FAILURE_LIMIT = 100;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;

/** Who is trying: the account named (a lower-cased e-mail, known or not) and the client's address. */
export interface Attempter {
  account: string;
  address: string;
}

/**
 * Counts failed password checks (sign-in, and the current password of a password change) per
 * account from each client address and per client address, in PostgreSQL so that every replica
 * counts together. An account's failures are counted per address, never for the account as a
 * whole: anyone could otherwise lock the administrator out by failing ten times from anywhere.
 *
 * Each attempt reserves its slot before the password is checked, in one atomic statement per
 * key: fifty guesses sent at once get ten checks, not fifty. A failure keeps its reservation; a
 * success resets the pair's count and gives the address its slot back. The counts saturate at
 * limit + 1, so attempts refused while locked never lengthen the lock nor spill onto the address.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    private readonly counters: LoginThrottleRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs `check` (a password comparison) unless the account from this address, or the address,
   * has used up its failures; answers what `check` answered.
   * @throws RetryLaterException (429 with Retry-After) while either is locked, even for the right password.
   */
  async guard(attempter: Attempter, check: () => Promise<boolean>): Promise<boolean> {
    // An address holds no "/" (IPv4, IPv6, or "unknown"), so the pair's key names one pair only.
    const keys = { account: `account:${attempter.address}/${attempter.account}`, address: `address:${attempter.address}` };
    const now = this.clock.now();
    const windowStart = new Date(now.getTime() - FAILURE_WINDOW_MS);
    const [account, address] = await Promise.all([
      this.counters.reserve(keys.account, now, windowStart, ACCOUNT_FAILURE_LIMIT + 1),
      this.counters.reserve(keys.address, now, windowStart, ADDRESS_FAILURE_LIMIT + 1),
    ]);
    const locked = [
      account.attempts > ACCOUNT_FAILURE_LIMIT ? account : null,
      address.attempts > ADDRESS_FAILURE_LIMIT ? address : null,
    ].filter((reservation) => reservation !== null);
    if (locked.length > 0) {
      // The key that still had room gets its slot back: this attempt was never made.
      await Promise.all([account, address].filter((reservation) => !locked.includes(reservation)).map((r) => this.counters.release(r.key)));
      const until = Math.max(...locked.map((reservation) => reservation.windowStartedAt.getTime() + FAILURE_WINDOW_MS));
      const seconds = Math.max(1, Math.ceil((until - now.getTime()) / 1000));
      throw new RetryLaterException(
        `Too many failed sign-in attempts ${locked[0] === account ? 'for this account ' : ''}from your address; try again in ${seconds} seconds.`,
        seconds,
      );
    }
    const matches = await check();
    if (matches) await Promise.all([this.counters.reset(keys.account), this.counters.release(keys.address)]);
    return matches;
  }

  /** Purges windows that have passed; the hourly housekeeping calls it. */
  purgeExpired(): Promise<number> {
    return this.counters.deletePassed(new Date(this.clock.now().getTime() - FAILURE_WINDOW_MS));
  }
}
