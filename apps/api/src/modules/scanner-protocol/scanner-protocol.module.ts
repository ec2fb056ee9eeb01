import { Module } from '@nestjs/common';
import { CertificatesModule } from '../certificates/certificates.module';
import { DiscoveryModule } from '../discovery/discovery.module';
import { FindingsModule } from '../findings/findings.module';
import { LinksModule } from '../links/links.module';
import { ScannersModule } from '../scanners/scanners.module';
import { TrustVerdictsModule } from '../trust/trust-verdicts.module';
import { AgentWorkService } from './agent-work.service';
import { HostResultsService } from './host-results.service';
import { SamlParser } from './saml-parser';
import { SamlResultsService } from './saml-results.service';
import { ScanResultsService } from './scan-results.service';
import { ScanWorkSignal } from './scan-work-signal';
import { ScannerProtocolController } from './scanner-protocol.controller';
import { ScannerProtocolRepository } from './scanner-protocol.repository';
import { SweepProtocolController } from './sweep-protocol.controller';

/**
 * Everything an agent talks to (docs/api-contract.md sections 2 and 8): every /scanner route, its
 * wire DTOs and pipes. Scanner administration is modules/scanners; what a sweep finds is kept by
 * modules/discovery.
 */
@Module({
  imports: [ScannersModule, CertificatesModule, LinksModule, TrustVerdictsModule, DiscoveryModule, FindingsModule],
  controllers: [ScannerProtocolController, SweepProtocolController],
  providers: [
    ScannerProtocolRepository,
    AgentWorkService,
    ScanResultsService,
    HostResultsService,
    SamlResultsService,
    SamlParser,
    ScanWorkSignal,
  ],
})
export class ScannerProtocolModule {}
