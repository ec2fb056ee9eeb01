import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ScannersService } from '../scanners/scanners.service';
import { UsersService } from '../users/users.service';

/** Seeds what a fresh installation needs: the first administrator and the default scanner. Idempotent. */
@Injectable()
export class FirstStartService implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UsersService,
    private readonly scanners: ScannersService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.users.ensureFirstAdmin(this.config.admin);
    await this.scanners.ensureDefaultScanner();
  }
}
