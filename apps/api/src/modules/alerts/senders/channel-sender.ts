import { Injectable } from '@nestjs/common';
import type { ChannelKind } from '@certkeeper/domain';
import { KeptConnections } from '@certkeeper/net';
import { ChannelsService, type OpenChannel } from '../../channels/channels.service';
import { type AttemptSubject, type ChannelMessage, ChannelPoster, type PostOutcome } from './channel-poster';
import type { DeliveryOutcome, Notification, NotificationSender, SenderSession } from './notification-sender';

const TEST_SUBJECT: AttemptSubject = { eventType: 'test', fingerprint: null, threshold: null, onSuccess: 'delivered' };
const DIGEST_SUBJECT: AttemptSubject = { eventType: 'digest', fingerprint: null, threshold: null, onSuccess: 'delivered' };

/**
 * A notification channel kind's sender (docs/api-contract.md section 17): a run's session serves
 * every enabled channel of the kind, each notification to the channel its recipient names, through
 * ChannelPoster. A kind says only what its requests look like, and what it reads once per run for
 * all of them (`Run`: the chat kinds' templates).
 */
@Injectable()
export abstract class ChannelSender<Run = unknown> implements NotificationSender {
  abstract readonly channel: ChannelKind;
  abstract readonly deliveryNoun: string;

  constructor(
    protected readonly channels: ChannelsService,
    protected readonly poster: ChannelPoster,
  ) {}

  /** What the kind reads once when a run opens, for every request of the run. */
  protected abstract openRun(): Promise<Run>;

  /** The kind's request for one notification. */
  protected abstract message(notification: Notification, channel: OpenChannel, run: Run): ChannelMessage | Promise<ChannelMessage>;

  /** The kind's request for `POST /notification-channels/{id}/test`. */
  protected abstract testMessage(channel: OpenChannel): ChannelMessage;

  /** A daily digest's one request; only the kinds that allow `mode: "daily"` have it. */
  protected digestMessage?(notifications: Notification[], channel: OpenChannel, run: Run): ChannelMessage;

  /** What the kind does once a run's deliveries are done, over its enabled channels. */
  protected finishRun?(channels: OpenChannel[], signal: AbortSignal): Promise<void>;

  /** Null when no channel of this kind is enabled: its recipients are then not served. */
  async open(): Promise<SenderSession | null> {
    const open = await this.channels.openEnabled(this.channel);
    if (open.length === 0) return null;
    const run = await this.openRun();
    const byId = new Map(open.map((channel) => [channel.id, channel]));
    // Each channel's own connections for the run: a delivery takes one its channel's last
    // delivery left open instead of connecting again, and never one to another channel.
    const connections = new Map(open.map((channel) => [channel.id, new KeptConnections()]));
    // The alert job claims each delivery and commits its log row with the claim.
    const withChannel = async (
      notification: Notification,
      post: (channel: OpenChannel, options: { inClaim: true; connections: KeptConnections }) => Promise<DeliveryOutcome>,
    ) => {
      const channel = byId.get(notification.recipient.channelId ?? '');
      return channel ? post(channel, { inClaim: true, connections: connections.get(channel.id)! }) : UNOPENED;
    };
    const digestMessage = this.digestMessage?.bind(this);
    const finishRun = this.finishRun?.bind(this);
    return {
      send: (notification, { signal }) =>
        withChannel(notification, async (channel, options) =>
          this.poster.post(channel, await this.message(notification, channel, run), subjectOf(notification), signal, options),
        ),
      ...(digestMessage && {
        sendDigest: (notifications: Notification[], { signal }: { signal: AbortSignal }) =>
          withChannel(notifications[0], async (channel, options) =>
            this.poster.post(channel, digestMessage(notifications, channel, run), DIGEST_SUBJECT, signal, options),
          ),
      }),
      ...(finishRun && { finish: ({ signal }: { signal: AbortSignal }) => finishRun(open, signal) }),
      close: () => connections.forEach((kept) => kept.close()),
    };
  }

  /** Sends the kind's test message to one channel now, enabled or not. */
  sendTest(channel: OpenChannel, signal: AbortSignal): Promise<PostOutcome> {
    return this.poster.post(channel, this.testMessage(channel), TEST_SUBJECT, signal);
  }
}

/** A channel left out of the run because its URL or secret cannot be decrypted (ChannelsService logged it). */
const UNOPENED: DeliveryOutcome = {
  status: 'failed',
  failure: {
    reason: 'other',
    replyCode: null,
    description: 'the stored URL or secret cannot be decrypted with the current ENCRYPTION_KEY',
  },
};

function subjectOf(notification: Notification): AttemptSubject {
  return {
    eventType: notification.eventType,
    fingerprint: notification.fingerprint,
    threshold: notification.bucket,
    onSuccess: 'delivered',
  };
}

/** Whether a sender is a notification channel kind's (the test route's senders), rather than e-mail's. */
export function isChannelSender(sender: NotificationSender): sender is ChannelSender {
  return sender instanceof ChannelSender;
}
