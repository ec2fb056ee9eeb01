import { Module } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module';
import { RenewalsRepository } from './renewals.repository';
import { SupersedingPolicy } from './superseding-policy';

/** Renewals never deployed (docs/api-contract.md section 16): the rule's SQL (superseded-by.ts), its inputs, and the facts of the renewal events. */
@Module({
  imports: [SettingsModule],
  providers: [RenewalsRepository, SupersedingPolicy],
  exports: [RenewalsRepository, SupersedingPolicy],
})
export class RenewalsModule {}
