import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../common/auth/route-access';
import { CalendarService } from './calendar.service';
import { REFRESH_INTERVAL } from './expiry-calendar';

const FEED_DESCRIPTION =
  'An iCalendar feed of the expiry dates of the certificates current on endpoints the token owner sees ' +
  '(their tag subscriptions; none means every endpoint), from already expired up to 365 days ahead: one all-day ' +
  'event per certificate, UID = SHA-256 fingerprint, display alarms 30, 14, 7 and 1 days before. The token in the ' +
  'path is the credential; no Authorization header is needed. Clients are asked to refresh hourly.';

/** The rendered bytes, sent as they are: Express adds Content-Length and an ETag, and answers 304 when it matches. */
function sendFeed(res: Response, body: Buffer): void {
  res
    .set({
      'Content-Type': 'text/calendar; charset=utf-8',
      'X-Published-TTL': REFRESH_INTERVAL,
      'Cache-Control': 'private, max-age=300',
    })
    .send(body);
}

/** The personal calendar feed, authenticated by the token in its URL (docs/api-contract.md section 2: public route). */
@ApiTags('calendar')
@Controller('calendar')
export class CalendarFeedController {
  constructor(private readonly calendar: CalendarService) {}

  @Get('u/:token/*file')
  @ApiOperation({
    summary: 'Get a calendar feed of certificate expiry dates',
    description:
      'Public: the token in the path (from `POST /api/v1/me/calendar-token`) is the credential. ' +
      'Answers an iCalendar file (`text/calendar`) for a calendar application to poll: the expiry dates of the certificates current ' +
      "on the endpoints the owner's tag subscriptions cover (every endpoint without subscriptions). " +
      'An unknown, rotated or cleared token and a disabled owner all get 404.',
  })
  @Public()
  @ApiParam({ name: 'token', description: 'The token from POST /api/v1/me/calendar-token.' })
  @ApiParam({ name: 'file', description: 'Any file name, e.g. certkeeper.ics; ignored, and it may be omitted.' })
  @ApiProduces('text/calendar')
  @ApiOkResponse({ description: FEED_DESCRIPTION, content: { 'text/calendar': { schema: { type: 'string' } } } })
  @ApiNotFoundResponse({ description: 'Unknown, rotated or cleared token, or a disabled user.' })
  async getCalendarFeed(@Param('token') token: string, @Res() res: Response): Promise<void> {
    sendFeed(res, await this.calendar.renderFeed(token));
  }

  /** The same feed without a file name after the token. */
  @Get('u/:token')
  @Public()
  @ApiExcludeEndpoint()
  async getCalendarFeedWithoutFileName(@Param('token') token: string, @Res() res: Response): Promise<void> {
    sendFeed(res, await this.calendar.renderFeed(token));
  }
}
