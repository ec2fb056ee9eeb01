import { Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { HOURLY_SCHEDULE, MAINTENANCE_SCHEDULE, MaintenanceService } from './maintenance.service';

/** Nightly and hourly on every replica; each task's lock lets one replica do it. */
@Injectable()
export class MaintenanceScheduler {
  constructor(private readonly maintenance: MaintenanceService) {}

  @Cron(MAINTENANCE_SCHEDULE, { name: 'maintenance', timeZone: 'UTC' })
  runNightly(): Promise<void> {
    return this.maintenance.runScheduled(MAINTENANCE_SCHEDULE);
  }

  @Cron(HOURLY_SCHEDULE, { name: 'maintenance-hourly', timeZone: 'UTC' })
  runHourly(): Promise<void> {
    return this.maintenance.runScheduled(HOURLY_SCHEDULE);
  }
}
