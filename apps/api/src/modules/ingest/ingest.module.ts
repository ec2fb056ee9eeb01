import { Module } from '@nestjs/common';
import { DiscoveryModule } from '../discovery/discovery.module';
import { CertificatesModule } from '../certificates/certificates.module';
import { LinksModule } from '../links/links.module';
import { ScannersModule } from '../scanners/scanners.module';
import { TrustVerdictsModule } from '../trust/trust-verdicts.module';
import { IngestRepository } from './ingest.repository';
import { IngestService } from './ingest.service';
import { SamlParser } from './saml-parser';
import { ScanWorkSignal } from './scan-work-signal';
import { ScannerProtocolController } from './scanner-protocol.controller';

@Module({
  imports: [ScannersModule, CertificatesModule, LinksModule, TrustVerdictsModule, DiscoveryModule],
  controllers: [ScannerProtocolController],
  providers: [IngestRepository, IngestService, SamlParser, ScanWorkSignal],
})
export class IngestModule {}
