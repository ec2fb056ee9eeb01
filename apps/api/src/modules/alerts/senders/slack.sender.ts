import { Injectable } from '@nestjs/common';
import { type ChatMessage, slackText } from '@certkeeper/domain/templates';
import type { ChannelMessage } from './channel-poster';
import { ChatSender } from './chat-sender';

/** Slack incoming webhooks: `{ text }` in Slack's mrkdwn, values escaped (slackText). */
@Injectable()
export class SlackSender extends ChatSender {
  readonly channel = 'slack';
  readonly deliveryNoun = 'Slack message';

  protected compose(message: ChatMessage): ChannelMessage {
    return { contentType: 'application/json', body: JSON.stringify({ text: slackText(message) }) };
  }
}
