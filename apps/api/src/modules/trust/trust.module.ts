import { Module } from '@nestjs/common';
import { CertificatesModule } from '../certificates/certificates.module';
import { FindingsModule } from '../findings/findings.module';
import { RootStoreRefresher } from './root-store-refresher';
import { RootStoreSeeder } from './root-store-seeder';
import { RootStoresController } from './root-stores.controller';
import { RootStoresService } from './root-stores.service';
import { TrustVerdictsModule } from './trust-verdicts.module';
import { TrustRepository } from './trust.repository';

@Module({
  imports: [CertificatesModule, TrustVerdictsModule, FindingsModule],
  controllers: [RootStoresController],
  providers: [TrustRepository, RootStoreSeeder, RootStoreRefresher, RootStoresService],
  exports: [TrustRepository, RootStoreRefresher],
})
export class TrustModule {}
