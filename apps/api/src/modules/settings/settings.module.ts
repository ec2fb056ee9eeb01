import { Module } from '@nestjs/common';
import { MailModule } from '../mail/mail.module';
import { SettingsCache } from './settings-cache';
import { SettingsController } from './settings.controller';
import { SettingsRepository } from './settings.repository';
import { SettingsService } from './settings.service';

@Module({
  imports: [MailModule],
  controllers: [SettingsController],
  providers: [SettingsCache, SettingsRepository, SettingsService],
  // The repository too: OIDC keeps its settings document beside the mail one (docs/api-contract.md section 9).
  exports: [SettingsService, SettingsRepository],
})
export class SettingsModule {}
