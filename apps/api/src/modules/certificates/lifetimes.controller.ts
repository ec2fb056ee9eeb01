import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { UserPrincipal } from '../../common/auth/principal';
import { CurrentUser, RequirePermission } from '../../common/auth/route-access';
import { LifetimesQueryDto, LifetimesResponseDto } from './lifetimes.dto';
import { LifetimesService } from './lifetimes.service';

// Registered before CertificatesController, whose `:fingerprint` would otherwise take `lifetimes`.
@ApiTags('certificates')
@Controller('certificates')
export class LifetimesController {
  constructor(private readonly lifetimes: LifetimesService) {}

  @Get('lifetimes')
  @ApiOperation({
    summary: 'The most common lifetimes of the certificates in use',
    description:
      "Needs `certs:view`. The current, unexpired certificates on endpoints in the caller's scope (their tag subscriptions, every " +
      'endpoint when they have none, as for the dashboard; `scope=all` ignores them), counted once each per lifetime: notAfter − ' +
      'notBefore rounded to the nearest whole day, at least 1. Most certificates first, at most `limit` (1 to 20, default 5), with ' +
      'the total of every lifetime. The thresholds screen shows when alerts would fire for each. A bad `scope` or `limit` is 400.',
  })
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: LifetimesResponseDto })
  getLifetimes(@Query() query: LifetimesQueryDto, @CurrentUser() caller: UserPrincipal): Promise<LifetimesResponseDto> {
    return this.lifetimes.mostCommon(caller.userId, query.scope, query.limit);
  }
}
