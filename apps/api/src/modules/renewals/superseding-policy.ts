import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { SettingsService } from '../settings/settings.service';
import { RenewalsRepository } from './renewals.repository';
import type { SupersedingWindow } from './superseded-by';

/**
 * The superseding rule's inputs now: the clock, and how long a stored renewal waits (the alert
 * policy). A change of that wait changes which renewal every link keeps: brought up to date at once.
 */
@Injectable()
export class SupersedingPolicy implements OnModuleInit {
  constructor(
    private readonly settings: SettingsService,
    private readonly renewals: RenewalsRepository,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.settings.onAlertPolicyChange((policy) =>
      this.renewals.refreshSuperseded('all', { now: this.clock.now(), afterHours: policy.supersededAfterHours }),
    );
  }

  async window(now: Date = this.clock.now()): Promise<SupersedingWindow> {
    return { now, afterHours: (await this.settings.alertPolicy()).supersededAfterHours };
  }
}
