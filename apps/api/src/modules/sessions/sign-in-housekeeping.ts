import { Injectable, Logger } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { Clock } from '../../common/clock';
import { LoginThrottle } from './login-throttle';
import { SessionsRepository } from './sessions.repository';

/**
 * Hourly on every replica: delete sessions past their JWT's expiry and failure windows that have
 * passed, which nothing reads any more. Concurrent runs delete the same rows harmlessly.
 */
@Injectable()
export class SignInHousekeeping {
  private readonly logger = new Logger('Sessions');

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly throttle: LoginThrottle,
    private readonly clock: Clock,
  ) {}

  @Cron('17 * * * *', { name: 'sign-in-housekeeping', timeZone: 'UTC' })
  async tick(): Promise<void> {
    try {
      await this.purge();
    } catch (error) {
      this.logger.error(`Expired sessions could not be purged: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async purge(): Promise<{ sessions: number; failureWindows: number }> {
    return { sessions: await this.sessions.deleteExpired(this.clock.now()), failureWindows: await this.throttle.purgeExpired() };
  }
}
