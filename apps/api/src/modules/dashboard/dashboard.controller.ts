import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser, RequirePermission } from '../../common/auth/route-access';
import type { UserPrincipal } from '../../common/auth/principal';
import { DashboardQueryDto, DashboardResponseDto } from './dashboard.dto';
import { DashboardService } from './dashboard.service';

@ApiTags('dashboard')
@Controller('dashboard')
export class DashboardController {
  constructor(private readonly dashboard: DashboardService) {}

  @Get()
  @ApiOperation({
    summary: "The caller's dashboard",
    description:
      'Needs `endpoints:view` and `certs:view`. ' +
      "Counts and three panels over the caller's scope: endpoints sharing a tag with their tag subscriptions (all endpoints when " +
      'they have none), as for e-mail alerts and the calendar feed; `scope=all` ignores the subscriptions. ' +
      '`counts`: endpoints in scope, by type, with a scan error (`errorSince` set) and stale; current links (the rows of ' +
      '`GET /certificates/active`) in scope, expired ones (notAfter <= now), and per configured alert threshold the links not yet ' +
      'expired with `daysRemaining` <= the threshold (largest threshold first). ' +
      'Panels of at most `limit` rows (1 to 100, default 10): `errorEndpoints`, oldest error first; `expiringCertificates`, active ' +
      'rows whose `daysRemaining` is at most the largest threshold, expired first then soonest; `staleScans`, enabled, not ' +
      'scan-exempt host and saml endpoints whose last scan (their creation when never scanned) is more than `staleHours` ' +
      '(1 to 8760, default 48) old, stalest first. Each count covers the whole of its panel. ' +
      'A bad `scope`, `limit` or `staleHours` is 400.',
  })
  @RequirePermission('endpoints:view', 'certs:view')
  @ApiOkResponse({ type: DashboardResponseDto })
  getDashboard(@Query() query: DashboardQueryDto, @CurrentUser() caller: UserPrincipal): Promise<DashboardResponseDto> {
    return this.dashboard.forUser({ userId: caller.userId, scope: query.scope, limit: query.limit, staleHours: query.staleHours });
  }
}
