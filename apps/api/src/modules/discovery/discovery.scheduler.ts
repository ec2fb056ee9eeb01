import { Injectable, Logger } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { SweepsService } from './sweeps.service';

/**
 * Every minute on every replica: queue the sweeps whose network's cron fired, fail the ones whose
 * agent went quiet. Both are safe to run concurrently (each cron slot and each sweep changes once).
 */
@Injectable()
export class DiscoveryScheduler {
  private readonly logger = new Logger('Discovery');

  constructor(private readonly sweeps: SweepsService) {}

  @Cron('* * * * *', { name: 'discovery-sweeps', timeZone: 'UTC' })
  async tick(): Promise<void> {
    try {
      await this.sweeps.failAbandonedSweeps();
      await this.sweeps.queueDueSweeps();
    } catch (error) {
      this.logger.error(`The discovery schedule could not run: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
