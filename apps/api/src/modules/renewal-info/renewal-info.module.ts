import { Module } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module';
import { AcmeRenewalInfoClient } from './acme-renewal-info.client';
import { RenewalInfoRefresher } from './renewal-info.refresher';
import { RenewalInfoRepository } from './renewal-info.repository';

/**
 * ACME renewal information (docs/api-contract.md section 15): the refresh the maintenance task
 * runs, and the stored windows the alert job, the dashboard and the certificate detail read.
 */
@Module({
  imports: [SettingsModule],
  providers: [AcmeRenewalInfoClient, RenewalInfoRefresher, RenewalInfoRepository],
  exports: [RenewalInfoRefresher, RenewalInfoRepository],
})
export class RenewalInfoModule {}
