import { Injectable } from '@nestjs/common';
import { type ChatMessage, teamsCard } from '@certkeeper/domain/templates';
import type { ChannelMessage } from './channel-poster';
import { ChatSender } from './chat-sender';

/** Microsoft Teams workflows and incoming webhooks: an Adaptive Card 1.4 whose TextBlocks hold the rendered template. */
@Injectable()
export class TeamsSender extends ChatSender {
  readonly channel = 'teams';
  readonly deliveryNoun = 'Teams message';

  protected compose(message: ChatMessage): ChannelMessage {
    return { contentType: 'application/json', body: JSON.stringify(teamsCard(message)) };
  }
}
