import { Module } from '@nestjs/common';
import { ExpiryModule } from '../expiry/expiry.module';
import { CalendarFeedCache } from './calendar-feed-cache';
import { CalendarFeedController } from './calendar-feed.controller';
import { CalendarRepository } from './calendar.repository';
import { CalendarService } from './calendar.service';
import { CalendarTokenController } from './calendar-token.controller';

/** Personal calendar feeds: the token route under /me and the public, token-in-path feed. */
@Module({
  imports: [ExpiryModule],
  controllers: [CalendarTokenController, CalendarFeedController],
  providers: [CalendarRepository, CalendarService, CalendarFeedCache],
})
export class CalendarModule {}
