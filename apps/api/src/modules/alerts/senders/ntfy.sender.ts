import { Injectable } from '@nestjs/common';
import { type ChatMessage, ntfyMessage } from '@certkeeper/domain/templates';
import type { OpenChannel } from '../../channels/channels.service';
import type { ChannelMessage } from './channel-poster';
import { ChatSender } from './chat-sender';

/**
 * ntfy: the rendered text posted to the topic URL, with `Title`, `Priority` (5 for an expired or
 * revoked certificate, 4 at 7 days or fewer, 3 otherwise) and `Tags` headers, and the access
 * token as a bearer token when one is set.
 */
@Injectable()
export class NtfySender extends ChatSender {
  readonly channel = 'ntfy';
  readonly deliveryNoun = 'ntfy message';

  protected compose(message: ChatMessage, channel: OpenChannel): ChannelMessage {
    const { title, priority, tags, body } = ntfyMessage(message);
    const headers: Record<string, string> = { title: headerValue(title), priority: String(priority), tags: tags.join(',') };
    if (channel.secret !== null) headers.authorization = `Bearer ${channel.secret}`;
    return { contentType: 'text/plain; charset=utf-8', body, headers };
  }
}

/**
 * A header carries Latin-1 only: a title with other characters (a common name in Cyrillic) goes
 * as an RFC 2047 encoded word, which ntfy decodes.
 */
function headerValue(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}
