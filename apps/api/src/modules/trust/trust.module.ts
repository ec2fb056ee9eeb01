import { Module } from '@nestjs/common';
import { CertificatesModule } from '../certificates/certificates.module';
import { RootStoreSeeder } from './root-store-seeder';
import { RootStoresController } from './root-stores.controller';
import { TrustRepository } from './trust.repository';

@Module({
  imports: [CertificatesModule],
  controllers: [RootStoresController],
  providers: [TrustRepository, RootStoreSeeder],
  exports: [TrustRepository],
})
export class TrustModule {}
