import { Module } from '@nestjs/common';
import { AlertsModule } from '../alerts/alerts.module';
import { ChannelsModule } from '../channels/channels.module';
import { RenewalInfoModule } from '../renewal-info/renewal-info.module';
import { FindingsModule } from '../findings/findings.module';
import { ScannersModule } from '../scanners/scanners.module';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { DashboardController } from './dashboard.controller';
import { DashboardRepository } from './dashboard.repository';
import { DashboardService } from './dashboard.service';

/** GET /dashboard: counts and panels per caller, scoped like alerts and calendar feeds. */
@Module({
  imports: [AlertsModule, ChannelsModule, FindingsModule, RenewalInfoModule, ScannersModule, SettingsModule, UsersModule],
  controllers: [DashboardController],
  providers: [DashboardRepository, DashboardService],
})
export class DashboardModule {}
