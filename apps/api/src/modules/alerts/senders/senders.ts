import type { Provider } from '@nestjs/common';
import { type Channel, CHANNELS } from '@certkeeper/domain/templates';
import { ChannelPoster } from './channel-poster';
import { EmailSender } from './email.sender';
import type { NotificationSender } from './notification-sender';
import { NtfySender } from './ntfy.sender';
import { PagerDutySender } from './pagerduty.sender';
import { SlackSender } from './slack.sender';
import { TeamsSender } from './teams.sender';
import { WebhookFactsRepository } from './webhook-facts.repository';
import { WebhookSender } from './webhook.sender';

/**
 * The sender registry: one sender per channel kind. A new channel is its name in CHANNELS and its
 * sender class here; the alert job serves every recipient of every channel whose sender opens.
 */
const SENDER_CLASSES = [EmailSender, WebhookSender, SlackSender, TeamsSender, NtfySender, PagerDutySender];

export const SENDERS = Symbol('SENDERS');

/** The senders, one per channel in CHANNELS' order; the application refuses to start when a channel has none. */
export const senderProviders: Provider[] = [
  ChannelPoster,
  WebhookFactsRepository,
  ...SENDER_CLASSES,
  {
    provide: SENDERS,
    inject: SENDER_CLASSES,
    useFactory: (...senders: NotificationSender[]): NotificationSender[] => CHANNELS.map((channel) => senderFor(senders, channel)),
  },
];

function senderFor(senders: NotificationSender[], channel: Channel): NotificationSender {
  const found = senders.filter((sender) => sender.channel === channel);
  if (found.length !== 1) throw new Error(`Channel ${channel} needs exactly one sender, and has ${found.length}.`);
  return found[0];
}
