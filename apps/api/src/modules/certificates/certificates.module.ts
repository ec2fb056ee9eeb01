import { Module } from '@nestjs/common';
import { EndpointsModule } from '../endpoints/endpoints.module';
import { FindingsModule } from '../findings/findings.module';
import { RevocationModule } from '../revocation/revocation.module';
import { LinksModule } from '../links/links.module';
import { RenewalInfoModule } from '../renewal-info/renewal-info.module';
import { RenewalsModule } from '../renewals/renewals.module';
import { TrustVerdictsModule } from '../trust/trust-verdicts.module';
import { UsersModule } from '../users/users.module';
import { CertificatesController } from './certificates.controller';
import { CertificatesRepository } from './certificates.repository';
import { CertificatesService } from './certificates.service';
import { EndpointCertificateController } from './endpoint-certificate.controller';
import { LifetimesController } from './lifetimes.controller';
import { LifetimesRepository } from './lifetimes.repository';
import { LifetimesService } from './lifetimes.service';
import { SearchController } from './search.controller';

@Module({
  imports: [
    LinksModule,
    EndpointsModule,
    FindingsModule,
    RenewalInfoModule,
    RenewalsModule,
    RevocationModule,
    TrustVerdictsModule,
    UsersModule,
  ],
  controllers: [LifetimesController, CertificatesController, EndpointCertificateController, SearchController],
  providers: [CertificatesRepository, CertificatesService, LifetimesRepository, LifetimesService],
  exports: [CertificatesService],
})
export class CertificatesModule {}
