import { Module } from '@nestjs/common';
import { RenewalsModule } from '../renewals/renewals.module';
import { RotationsModule } from '../rotations/rotations.module';
import { LinksRepository } from './links.repository';
import { LinksService } from './links.service';

/** Endpoint-certificate links: the one place their state machine and queries live. */
@Module({
  imports: [RotationsModule, RenewalsModule],
  providers: [LinksRepository, LinksService],
  exports: [LinksRepository, LinksService],
})
export class LinksModule {}
