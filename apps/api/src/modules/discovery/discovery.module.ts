import { Module } from '@nestjs/common';
import { CertificatesModule } from '../certificates/certificates.module';
import { EndpointsModule } from '../endpoints/endpoints.module';
import { DiscoveryScheduler } from './discovery.scheduler';
import { InboxController } from './inbox.controller';
import { InboxRepository } from './inbox.repository';
import { InboxService } from './inbox.service';
import { NetworksController } from './networks.controller';
import { NetworksRepository } from './networks.repository';
import { NetworksService } from './networks.service';
import { SweepsController } from './sweeps.controller';
import { SweepsRepository } from './sweeps.repository';
import { SweepsService } from './sweeps.service';

/** Discovery (docs/api-contract.md section 8): networks, their sweeps, and the inbox of what the sweeps found. */
@Module({
  imports: [CertificatesModule, EndpointsModule],
  controllers: [NetworksController, SweepsController, InboxController],
  providers: [NetworksRepository, NetworksService, SweepsRepository, SweepsService, InboxRepository, InboxService, DiscoveryScheduler],
  exports: [SweepsService],
})
export class DiscoveryModule {}
