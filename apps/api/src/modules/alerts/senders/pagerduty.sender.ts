import { Injectable, Logger } from '@nestjs/common';
import { pagerDutyPayload } from '@certkeeper/domain/templates';
import { Clock } from '../../../common/clock';
import { ChannelsService, type OpenChannel } from '../../channels/channels.service';
import { AppMetrics } from '../../metrics/app-metrics';
import { type Renderer, TemplatesService } from '../../templates/templates.service';
import { AlertsRepository } from '../alerts.repository';
import { type ChannelMessage, ChannelPoster } from './channel-poster';
import { ChannelSender } from './channel-sender';
import type { Notification } from './notification-sender';

/**
 * PagerDuty Events API v2 (docs/api-contract.md section 17): a trigger per notification, deduplicated
 * by certificate, and once the certificate is no longer current on any endpoint in the channel's
 * scope, one resolve with the same dedup key, claimed like a delivery so that it is sent once.
 */
@Injectable()
export class PagerDutySender extends ChannelSender<Renderer> {
  readonly channel = 'pagerduty';
  readonly deliveryNoun = 'PagerDuty event';
  private readonly logger = new Logger('Alerts');

  constructor(
    channels: ChannelsService,
    poster: ChannelPoster,
    private readonly templates: TemplatesService,
    private readonly alerts: AlertsRepository,
    private readonly metrics: AppMetrics,
    private readonly clock: Clock,
  ) {
    super(channels, poster);
  }

  protected openRun(): Promise<Renderer> {
    return this.templates.renderer('pagerduty');
  }

  protected message(notification: Notification, channel: OpenChannel, render: Renderer): ChannelMessage {
    return event(
      channel,
      'trigger',
      notification.fingerprint,
      pagerDutyPayload(notification, render(notification.eventType, notification.values)),
    );
  }

  protected testMessage(channel: OpenChannel): ChannelMessage {
    return event(channel, 'trigger', 'test', {
      summary: 'Certkeeper test event: alerts reach this service',
      source: 'certkeeper',
      severity: 'info',
      custom_details: { message: 'This is a test event from Certkeeper. Resolve it in PagerDuty.' },
    });
  }

  /** Resolves, once each, the incidents whose certificate left every endpoint in the channel's scope. */
  protected override async finishRun(channels: OpenChannel[], signal: AbortSignal): Promise<void> {
    for (const channel of channels) {
      for (const fingerprint of await this.alerts.incidentsToResolve(channel.id, channel.tags)) {
        const result = await this.alerts.claimResolutionAndSend(channel.id, fingerprint, this.clock.now(), () =>
          this.poster.post(
            channel,
            event(channel, 'resolve', fingerprint),
            { eventType: 'resolve', fingerprint, threshold: null, onSuccess: 'resolved' },
            signal,
            { inClaim: true },
          ),
        );
        if (result.outcome === 'sent') this.metrics.recordResolved(this.channel);
        else if (result.outcome === 'failed') {
          this.metrics.recordAlertOutcome(this.channel, 'failed');
          const why = 'failure' in result ? result.failure.description : 'internal error';
          this.logger.warn(`PagerDuty resolve for channel ${channel.id} not sent, retried on the next run: ${why}`, {
            channel_id: channel.id,
            fingerprint,
          });
        }
      }
    }
  }
}

function event(channel: OpenChannel, action: 'trigger' | 'resolve', fingerprint: string, payload?: object): ChannelMessage {
  const body = { routing_key: channel.secret, event_action: action, dedup_key: `certkeeper:${fingerprint}`, ...(payload && { payload }) };
  return { contentType: 'application/json', body: JSON.stringify(body) };
}
