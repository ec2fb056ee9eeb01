import { Module } from '@nestjs/common';
import { NetworksController } from './networks.controller';
import { NetworksRepository } from './networks.repository';
import { NetworksService } from './networks.service';

@Module({
  controllers: [NetworksController],
  providers: [NetworksRepository, NetworksService],
})
export class DiscoveryModule {}
