import type { Channel, EventType } from '@certkeeper/domain/templates';

/**
 * Who hears about events: a user by e-mail (notify on, account enabled, an address on file), or an
 * enabled notification channel. `key` is the recipient's column in the outbox, `user:<id>` or
 * `channel:<id>`; exactly one of `userId` and `channelId` is set.
 */
export interface Recipient {
  key: string;
  channel: Channel;
  /** The e-mail address; empty for a notification channel, whose sender holds its URL. */
  address: string;
  /** The tags scoping what it hears (docs/api-contract.md section 6): empty means every endpoint. */
  tags: string[];
  userId: string | null;
  channelId: string | null;
  /** The event types it hears; null for every one (a user). */
  events: EventType[] | null;
  /** A daily channel's digest: its UTC hour, and the last digest sent (the channel's creation before the first); null when immediate. */
  digest: { hour: number; since: Date } | null;
}
