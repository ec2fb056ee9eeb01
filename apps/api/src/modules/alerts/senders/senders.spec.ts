import type { FactoryProvider } from '@nestjs/common';
import { CHANNELS } from '@certkeeper/domain/templates';
import type { NotificationSender } from './notification-sender';
import { SENDERS, senderProviders } from './senders';

describe('the sender registry', () => {
  const registry = senderProviders.find((p): p is FactoryProvider => typeof p === 'object' && 'provide' in p && p.provide === SENDERS)!;
  const build = registry.useFactory as (...senders: NotificationSender[]) => NotificationSender[];
  const sender = (channel: string) =>
    ({ channel, deliveryNoun: 'Alert', open: () => Promise.resolve(null) }) as unknown as NotificationSender;

  it('answers one sender per channel, in the order of CHANNELS', () => {
    const senders = CHANNELS.map(sender);
    expect(build(...[...senders].reverse())).toEqual(senders);
  });

  it('refuses to start when a channel has no sender, or two', () => {
    expect(() => build()).toThrow('Channel email needs exactly one sender, and has 0.');
    expect(() => build(sender('email'), sender('email'))).toThrow('Channel email needs exactly one sender, and has 2.');
  });
});
