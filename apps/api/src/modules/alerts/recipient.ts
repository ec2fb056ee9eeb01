import type { Channel } from '@certkeeper/domain/templates';

/**
 * Who hears about events: today a user, by e-mail (notify on, account enabled, an address on file).
 * `key` is the recipient's column in the outbox, `user:<id>`.
 */
export interface Recipient {
  key: string;
  channel: Channel;
  /** Where the channel's sender delivers: the e-mail address. */
  address: string;
  /** The tags scoping what it hears (docs/api-contract.md section 6): empty means every endpoint. */
  tags: string[];
  userId: string;
}
