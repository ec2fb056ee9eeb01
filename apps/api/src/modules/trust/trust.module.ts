import { Module } from '@nestjs/common';
import { CertificatesModule } from '../certificates/certificates.module';
import { RootStoreRefresher } from './root-store-refresher';
import { RootStoreSeeder } from './root-store-seeder';
import { RootStoresController } from './root-stores.controller';
import { TrustRepository } from './trust.repository';

@Module({
  imports: [CertificatesModule],
  controllers: [RootStoresController],
  providers: [TrustRepository, RootStoreSeeder, RootStoreRefresher],
  exports: [TrustRepository, RootStoreRefresher],
})
export class TrustModule {}
