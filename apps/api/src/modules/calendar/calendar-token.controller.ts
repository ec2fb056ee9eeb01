import { Controller, Header, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { UserPrincipal } from '../../common/auth/principal';
import { CurrentUser, RequirePermission } from '../../common/auth/route-access';
import { CalendarTokenResponseDto } from './calendar.dto';
import { CalendarService } from './calendar.service';

@ApiTags('me')
@Controller('me/calendar-token')
export class CalendarTokenController {
  constructor(private readonly calendar: CalendarService) {}

  /** Creates the caller's calendar feed token, or rotates it: the previous feed URL stops working. */
  @Post()
  @ApiOperation({
    summary: 'Create or rotate your calendar feed token',
    description:
      'Needs `self:access`. ' +
      "Creates a calendar feed token for the caller and answers it with the absolute feed URL (from `PUBLIC_URL`, else the request's " +
      'protocol and Host). The token is shown once (only its hash is stored) and replaces any previous one, whose URL stops working. ' +
      '400 when `PUBLIC_URL` is not set and the request has no valid Host header.',
  })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @RequirePermission('self:access')
  @ApiOkResponse({ type: CalendarTokenResponseDto, description: 'A new token; any previous one no longer works.' })
  async createCalendarToken(@CurrentUser() caller: UserPrincipal, @Req() req: Request): Promise<CalendarTokenResponseDto> {
    return this.calendar.createToken(caller.userId, { protocol: req.protocol, host: req.headers.host });
  }
}
