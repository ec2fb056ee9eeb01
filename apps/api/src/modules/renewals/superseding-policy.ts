import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { SettingsService } from '../settings/settings.service';
import type { SupersedingWindow } from './superseded-by';

/** The superseding rule's inputs now: the clock, and how long a stored renewal waits (the alert policy). */
@Injectable()
export class SupersedingPolicy {
  constructor(
    private readonly settings: SettingsService,
    private readonly clock: Clock,
  ) {}

  async window(now: Date = this.clock.now()): Promise<SupersedingWindow> {
    return { now, afterHours: (await this.settings.alertPolicy()).supersededAfterHours };
  }
}
