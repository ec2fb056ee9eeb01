import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { ExpiryModule } from '../expiry/expiry.module';
import { MailModule } from '../mail/mail.module';
import { RenewalInfoModule } from '../renewal-info/renewal-info.module';
import { RenewalsModule } from '../renewals/renewals.module';
import { RevocationModule } from '../revocation/revocation.module';
import { SettingsModule } from '../settings/settings.module';
import { TemplatesModule } from '../templates/templates.module';
import { AlertsController } from './alerts.controller';
import { AlertsRepository } from './alerts.repository';
import { AlertsScheduler } from './alerts.scheduler';
import { AlertsService } from './alerts.service';
import { ChannelTestController } from './channel-test.controller';
import { factLoaderProviders } from './facts/fact-loaders';
import { senderProviders } from './senders/senders';

@Module({
  imports: [ChannelsModule, ExpiryModule, MailModule, RenewalInfoModule, RenewalsModule, RevocationModule, SettingsModule, TemplatesModule],
  controllers: [AlertsController, ChannelTestController],
  providers: [AlertsRepository, AlertsService, AlertsScheduler, ...factLoaderProviders, ...senderProviders],
  exports: [AlertsService],
})
export class AlertsModule {}
