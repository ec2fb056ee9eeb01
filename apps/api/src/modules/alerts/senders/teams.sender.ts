import { Injectable } from '@nestjs/common';
import type { ChannelMessage } from './channel-poster';
import { type ChatMessage, ChatSender } from './chat-sender';

/** Microsoft Teams workflows and incoming webhooks: an Adaptive Card 1.4 whose TextBlocks hold the rendered template. */
@Injectable()
export class TeamsSender extends ChatSender {
  readonly channel = 'teams';
  readonly deliveryNoun = 'Teams message';

  protected compose(message: ChatMessage): ChannelMessage {
    const title = { type: 'TextBlock', text: message.title, weight: 'Bolder', size: 'Medium', wrap: true };
    const blocks = message.sections.map((text) => ({ type: 'TextBlock', text, wrap: true, separator: true }));
    const card = {
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [title, ...blocks],
          },
        },
      ],
    };
    return { contentType: 'application/json', body: JSON.stringify(card) };
  }
}
