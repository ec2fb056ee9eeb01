import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { addDays } from '@certkeeper/domain';
import { hashToken, randomToken } from '../../common/auth/secrets';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ExpiryRepository } from '../expiry/expiry.repository';
import { CalendarRepository } from './calendar.repository';
import { FEED_WINDOW_DAYS, renderExpiryCalendar } from './expiry-calendar';

/** Where the feed is served; the file name after the token is free, this one is what we hand out. */
const FEED_PATH = (token: string) => `/api/v1/calendar/u/${token}/certkeeper.ics`;

// A Host header is a reg-name or an IP literal, with an optional port; anything else is not put in a URL.
const HOST_HEADER = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** How the request reached us, for building absolute URLs when PUBLIC_URL is not set. */
export interface RequestOrigin {
  protocol: string;
  host: string | undefined;
}

@Injectable()
export class CalendarService {
  constructor(
    private readonly calendar: CalendarRepository,
    private readonly expiry: ExpiryRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A new token for the user, replacing (and so invalidating) any previous one, with its feed URL.
   * The URL's base is settled first, so a request that cannot name it leaves the old token working.
   */
  async createToken(userId: string, origin: RequestOrigin): Promise<{ token: string; url: string }> {
    const base = this.feedBase(origin);
    const token = randomToken(32);
    // The guard has just loaded this user; only a concurrent delete gets here.
    if (!(await this.calendar.setTokenHash(userId, hashToken(token)))) throw new NotFoundException('User not found.');
    return { token, url: `${base}${FEED_PATH(token)}` };
  }

  /** PUBLIC_URL when configured, else the request's own protocol and Host. */
  private feedBase(origin: RequestOrigin): string {
    if (this.config.publicUrl !== null) return this.config.publicUrl.replace(/\/+$/, '');
    if (origin.host === undefined || !HOST_HEADER.test(origin.host)) {
      throw new BadRequestException('Cannot build the feed URL: the request has no valid Host header and PUBLIC_URL is not set.');
    }
    return `${origin.protocol}://${origin.host}`;
  }

  /**
   * The feed of the token's owner as iCalendar (UTF-8 bytes). An unknown, rotated or cleared token and a
   * disabled owner all answer the same 404, so the URL reveals nothing. The notify flag is not
   * consulted: it governs e-mail only.
   */
  async renderFeed(token: string): Promise<Buffer> {
    const owner = await this.calendar.findOwnerByTokenHash(hashToken(token));
    if (!owner || owner.disabled) throw new NotFoundException('Calendar feed not found.');
    const now = this.clock.now();
    const certificates = await this.expiry.findCurrentExpiringBefore(addDays(now, FEED_WINDOW_DAYS), owner.tagSubscriptions);
    return renderExpiryCalendar(certificates, now);
  }
}
