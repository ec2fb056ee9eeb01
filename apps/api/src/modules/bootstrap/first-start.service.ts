import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ScannersService } from '../scanners/scanners.service';
import { UsersService } from '../users/users.service';

/** Seeds what a fresh installation needs: the first administrator and the default scanner. Idempotent. */
@Injectable()
export class FirstStartService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('FirstStart');
  private seeding: Promise<void> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UsersService,
    private readonly scanners: ScannersService,
  ) {}

  /**
   * Starts seeding as soon as the database is ready rather than in turn with the other modules'
   * bootstrap hooks, which Nest awaits one module after another: the first administrator's
   * password hash (scrypt, a few hundred ms on libuv's thread pool, decision 0007) then overlaps
   * the root store seeding instead of following it (docs/decisions/0014-fast-start.md).
   */
  onModuleInit(): void {
    this.seeding = this.seed();
    // Awaited in onApplicationBootstrap, which reports a failure; this only keeps a failure that
    // happens before then (while other modules initialise) from counting as unhandled.
    this.seeding.catch(() => undefined);
  }

  async onApplicationBootstrap(): Promise<void> {
    await (this.seeding ?? this.seed());
  }

  private async seed(): Promise<void> {
    const started = performance.now();
    await Promise.all([this.users.ensureFirstAdmin(this.config.admin), this.scanners.ensureDefaultScanner()]);
    // Wall time, shared with whatever else ran meanwhile (see onModuleInit).
    this.logger.debug(`First-start seeding (administrator, default scanner) done after ${Math.round(performance.now() - started)} ms.`);
  }
}
