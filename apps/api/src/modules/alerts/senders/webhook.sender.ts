import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { daysRemaining } from '@certkeeper/domain';
import { Webhook } from 'standardwebhooks';
import { Clock } from '../../../common/clock';
import { ChannelsService, type OpenChannel } from '../../channels/channels.service';
import { type ChannelMessage, ChannelPoster } from './channel-poster';
import { ChannelSender } from './channel-sender';
import type { Notification } from './notification-sender';
import { type WebhookCertificateFacts, WebhookFactsRepository } from './webhook-facts.repository';

/** The facts a run read, by certificate and the endpoints in scope. */
type FactsOfRun = Map<string, Promise<WebhookCertificateFacts>>;

/**
 * Webhooks signed per Standard Webhooks (docs/api-contract.md section 17): the event as JSON data,
 * never a template, with `webhook-id`, `webhook-timestamp` and `webhook-signature` made by the
 * reference library. The id derives from the outbox key, so every retry of one delivery carries
 * the same one and a receiver can drop a repeat.
 */
@Injectable()
export class WebhookSender extends ChannelSender<FactsOfRun> {
  readonly channel = 'webhook';
  readonly deliveryNoun = 'Webhook';

  constructor(
    channels: ChannelsService,
    poster: ChannelPoster,
    private readonly facts: WebhookFactsRepository,
    private readonly clock: Clock,
  ) {
    super(channels, poster);
  }

  // A webhook's body is the event's data, never a template: each certificate's facts are read once a run, whatever the channels.
  protected openRun(): Promise<FactsOfRun> {
    return Promise.resolve<FactsOfRun>(new Map());
  }

  protected async message(notification: Notification, channel: OpenChannel, factsOfRun: FactsOfRun): Promise<ChannelMessage> {
    const { certificate } = notification;
    const endpointIds = certificate.endpoints.map((e) => e.id);
    // The endpoints in the recipient's scope are part of the key: channels with other tags see others.
    const key = `${certificate.fingerprint}/${endpointIds.join(',')}`;
    if (!factsOfRun.has(key)) {
      // A failed read is not kept: the next delivery of the certificate asks again.
      const loading = this.facts.load(certificate.fingerprint, endpointIds);
      loading.catch(() => factsOfRun.delete(key));
      factsOfRun.set(key, loading);
    }
    const facts = await factsOfRun.get(key)!;
    const data = {
      certificate: {
        fingerprint: certificate.fingerprint,
        commonName: certificate.commonName,
        sans: facts.sans,
        issuerCommonName: facts.issuerCommonName,
        notBefore: facts.notBefore?.toISOString() ?? null,
        notAfter: certificate.notAfter.toISOString(),
        daysRemaining: daysRemaining(certificate.notAfter, this.clock.now()),
      },
      threshold: notification.bucket,
      endpoints: certificate.endpoints.map((e) => ({ id: e.id, name: e.name, type: e.type, tags: facts.tagsByEndpoint.get(e.id) ?? [] })),
      ...notification.eventValues,
    };
    return signed(channel, deliveryId(notification), notification.eventType, data);
  }

  protected testMessage(channel: OpenChannel): ChannelMessage {
    return signed(channel, `msg_test_${randomUUID().replaceAll('-', '')}`, 'test', {
      message: 'This is a test message from Certkeeper. Webhooks reach this receiver.',
    });
  }
}

/** `msg_` and a digest of the outbox key (recipient, event type, fingerprint, bucket): the same on every attempt. */
export function deliveryId(key: Pick<Notification, 'recipient' | 'eventType' | 'fingerprint' | 'bucket'>): string {
  const digest = createHash('sha256').update(`${key.recipient.key}\n${key.eventType}\n${key.fingerprint}\n${key.bucket}`).digest('hex');
  return `msg_${digest.slice(0, 32)}`;
}

function signed(channel: OpenChannel, id: string, type: string, data: object): ChannelMessage {
  // The wall clock, not the application's: receivers check the timestamp against their own clock (5 minutes' tolerance).
  const sentAt = new Date();
  const body = JSON.stringify({ type, id, timestamp: sentAt.toISOString(), data });
  return {
    contentType: 'application/json',
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': new Webhook(channel.secret!).sign(id, sentAt, body),
    },
  };
}
