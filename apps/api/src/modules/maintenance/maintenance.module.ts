import { Module } from '@nestjs/common';
import { RenewalInfoModule } from '../renewal-info/renewal-info.module';
import { RenewalsModule } from '../renewals/renewals.module';
import { RevocationModule } from '../revocation/revocation.module';
import { TrustModule } from '../trust/trust.module';
import { MaintenanceController } from './maintenance.controller';
import { MaintenanceRepository } from './maintenance.repository';
import { MaintenanceScheduler } from './maintenance.scheduler';
import { MaintenanceService } from './maintenance.service';

@Module({
  imports: [TrustModule, RenewalInfoModule, RenewalsModule, RevocationModule],
  controllers: [MaintenanceController],
  providers: [MaintenanceRepository, MaintenanceService, MaintenanceScheduler],
})
export class MaintenanceModule {}
