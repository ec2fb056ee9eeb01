import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { AlertsService } from './alerts.service';

/** Every replica triggers the job hourly; the first takes the lock, the others skip (AlertsService.runScheduled). */
@Injectable()
export class AlertsScheduler {
  private readonly logger = new Logger('Alerts');

  constructor(private readonly alerts: AlertsService) {}

  @Cron(CronExpression.EVERY_HOUR, { name: 'alert-job' })
  async runHourly(): Promise<void> {
    await this.alerts
      .runScheduled()
      .catch((error: unknown) => this.logger.error(`The alert job failed: ${error instanceof Error ? error.message : String(error)}`));
  }
}
