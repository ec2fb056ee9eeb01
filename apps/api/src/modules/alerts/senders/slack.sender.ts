import { Injectable } from '@nestjs/common';
import type { ChannelMessage } from './channel-poster';
import { type ChatMessage, ChatSender } from './chat-sender';

/**
 * Slack incoming webhooks: `{ text }` in Slack's mrkdwn. `&`, `<` and `>` are escaped as Slack
 * asks, so a value (a common name such as `<!channel>`) can never mention anyone or make a link.
 */
@Injectable()
export class SlackSender extends ChatSender {
  readonly channel = 'slack';
  readonly deliveryNoun = 'Slack message';

  protected compose(message: ChatMessage): ChannelMessage {
    const text = [`*${slackEscape(message.title)}*`, ...message.sections.map(slackEscape)].join('\n\n');
    return { contentType: 'application/json', body: JSON.stringify({ text }) };
  }
}

function slackEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
