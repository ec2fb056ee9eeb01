import { Module } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module';
import { FindingsRepository } from './findings.repository';
import { FindingsService } from './findings.service';

/** Each endpoint's stored findings (docs/api-contract.md section 18): the one place they are computed and written. */
@Module({
  imports: [SettingsModule],
  providers: [FindingsRepository, FindingsService],
  exports: [FindingsService],
})
export class FindingsModule {}
