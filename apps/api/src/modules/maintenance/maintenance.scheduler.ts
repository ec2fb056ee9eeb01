import { Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { MAINTENANCE_SCHEDULE, MaintenanceService } from './maintenance.service';

/** Nightly on every replica; each task's lock lets one replica do it. */
@Injectable()
export class MaintenanceScheduler {
  constructor(private readonly maintenance: MaintenanceService) {}

  @Cron(MAINTENANCE_SCHEDULE, { name: 'maintenance', timeZone: 'UTC' })
  runNightly(): Promise<void> {
    return this.maintenance.runPipeline();
  }
}
