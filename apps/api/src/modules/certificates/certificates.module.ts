import { Module } from '@nestjs/common';
import { EndpointsModule } from '../endpoints/endpoints.module';
import { LinksModule } from '../links/links.module';
import { CertificatesController } from './certificates.controller';
import { CertificatesRepository } from './certificates.repository';
import { CertificatesService } from './certificates.service';
import { EndpointCertificateController } from './endpoint-certificate.controller';
import { SearchController } from './search.controller';
import { TrustVerdictsRepository } from './trust-verdicts.repository';
import { TrustVerdictsService } from './trust-verdicts.service';

@Module({
  imports: [LinksModule, EndpointsModule],
  controllers: [CertificatesController, EndpointCertificateController, SearchController],
  providers: [CertificatesRepository, CertificatesService, TrustVerdictsRepository, TrustVerdictsService],
  exports: [CertificatesService, TrustVerdictsService],
})
export class CertificatesModule {}
