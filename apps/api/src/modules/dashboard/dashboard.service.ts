import { Injectable } from '@nestjs/common';
import { expiringWithinBefore } from '@certkeeper/domain';
import { FindingsService } from '../findings/findings.service';
import { Clock } from '../../common/clock';
import { ChannelsRepository } from '../channels/channels.repository';
import { AlertsService } from '../alerts/alerts.service';
import { RenewalInfoRepository } from '../renewal-info/renewal-info.repository';
import { ScannersService } from '../scanners/scanners.service';
import { SettingsService } from '../settings/settings.service';
import { type CallerScope, CallerScopes } from '../users/caller-scope';
import type { DashboardResponseDto } from './dashboard.dto';
import { type AlertingState, toDashboard } from './dashboard.mapper';
import { DashboardRepository } from './dashboard.repository';

const HOUR_MS = 60 * 60 * 1000;

export interface DashboardRequest {
  userId: string;
  scope: CallerScope;
  limit: number;
  staleHours: number;
}

@Injectable()
export class DashboardService {
  constructor(
    private readonly dashboard: DashboardRepository,
    private readonly scopes: CallerScopes,
    private readonly settings: SettingsService,
    private readonly alerts: AlertsService,
    private readonly scanners: ScannersService,
    private readonly renewalInfo: RenewalInfoRepository,
    private readonly findings: FindingsService,
    private readonly channels: ChannelsRepository,
    private readonly clock: Clock,
  ) {}

  /** The caller's dashboard (docs/api-contract.md section 11): counts and three panels over one scope. */
  async forUser(request: DashboardRequest): Promise<DashboardResponseDto> {
    const now = this.clock.now();
    const [subscriptions, thresholds] = await Promise.all([
      this.scopes.subscriptions(request.userId, request.scope),
      this.settings.alertThresholds(),
    ]);
    // The alert buckets' and GET /certificates/expiring's rule: daysRemaining <= d.
    const horizons = thresholds.map((days) => expiringWithinBefore(days, now));
    const expiringBefore = expiringWithinBefore(Math.max(...thresholds), now);
    const staleBefore = new Date(now.getTime() - request.staleHours * HOUR_MS);
    // Independent reads, each on its own pooled connection.
    const [endpoints, links, renewalNotDeployed, errorEndpoints, expiring, staleScans, findings, alerting, renewalOverdue] =
      await Promise.all([
        this.dashboard.countEndpoints(subscriptions, staleBefore),
        this.dashboard.countCurrentLinks(subscriptions, now, horizons),
        this.dashboard.countRenewalNotDeployed(subscriptions),
        this.dashboard.findErrorEndpoints(subscriptions, request.limit),
        this.dashboard.findExpiringLinks(subscriptions, expiringBefore, request.limit),
        this.dashboard.findStaleScans(subscriptions, staleBefore, request.limit),
        this.findings.dashboard(subscriptions, request.limit),
        this.alerting(),
        this.renewalOverdue(subscriptions, now),
      ]);
    return toDashboard(
      { thresholds, endpoints, links, renewalNotDeployed, errorEndpoints, expiring, staleScans, findings, alerting, renewalOverdue },
      now,
    );
  }

  /** Ended renewal windows count only while renewal information is used: once off, the stored windows go stale. */
  private async renewalOverdue(subscriptions: readonly string[], now: Date): Promise<number> {
    return (await this.settings.alertPolicy()).renewalInfo ? this.renewalInfo.countOverdue(now, subscriptions) : 0;
  }

  /** Whether anyone will hear of an expiry: mail, the latest alert run, the scanners, the failing channels. Not scoped. */
  private async alerting(): Promise<AlertingState> {
    const [smtp, lastRun, scanners, failingChannels] = await Promise.all([
      this.settings.smtpSettings(),
      this.alerts.lastRun(),
      this.scanners.listScanners(),
      this.channels.failingChannels(),
    ]);
    return { mailEnabled: smtp !== null, lastRun, scanners, failingChannels };
  }
}
