import { Injectable } from '@nestjs/common';
import type { ChannelKind } from '@certkeeper/domain';
import { type ChatMessage, type Urgency, urgencyOf } from '@certkeeper/domain/templates';
import { ChannelsService, type OpenChannel } from '../../channels/channels.service';
import { type Renderer, TemplatesService } from '../../templates/templates.service';
import { type ChannelMessage, ChannelPoster } from './channel-poster';
import { ChannelSender } from './channel-sender';
import type { Notification } from './notification-sender';

/**
 * The chat kinds (slack, teams, ntfy): a notification is its template for the kind rendered as
 * text (docs/api-contract.md section 17), and a daily digest gathers several into one message.
 */
@Injectable()
export abstract class ChatSender extends ChannelSender<Renderer> {
  abstract override readonly channel: Extract<ChannelKind, 'slack' | 'teams' | 'ntfy'>;

  constructor(
    channels: ChannelsService,
    poster: ChannelPoster,
    private readonly templates: TemplatesService,
  ) {
    super(channels, poster);
  }

  /** The kind's request for a chat message. */
  protected abstract compose(message: ChatMessage, channel: OpenChannel): ChannelMessage;

  protected openRun(): Promise<Renderer> {
    return this.templates.renderer(this.channel);
  }

  protected message(notification: Notification, channel: OpenChannel, render: Renderer): ChannelMessage {
    const { subject, text } = render(notification.eventType, notification.values);
    return this.compose(
      { title: subject, sections: [text], urgency: urgencyOf(notification), eventTypes: [notification.eventType] },
      channel,
    );
  }

  protected override digestMessage(notifications: Notification[], channel: OpenChannel, render: Renderer): ChannelMessage {
    const sections: string[] = [];
    for (const notification of notifications) {
      const { subject, text } = render(notification.eventType, notification.values);
      sections.push(`${subject}\n${text}`);
    }
    const count = notifications.length;
    return this.compose(
      {
        title: `Certkeeper daily digest: ${count} certificate ${count === 1 ? 'alert' : 'alerts'}`,
        sections,
        urgency: Math.max(...notifications.map(urgencyOf)) as Urgency,
        eventTypes: [...new Set(notifications.map((n) => n.eventType))],
      },
      channel,
    );
  }

  protected testMessage(channel: OpenChannel): ChannelMessage {
    return this.compose(
      {
        title: 'Certkeeper test message',
        sections: ['This is a test message from Certkeeper. Alerts reach this channel.'],
        urgency: 3,
        eventTypes: ['test'],
      },
      channel,
    );
  }
}
