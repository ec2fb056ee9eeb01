import { type HttpReceiver, type ReceiverAnswer, type ReceivedRequest, startHttpReceiver } from '@certkeeper/net/testing';
import type { AppConfig } from '../../src/config/app-config';
import { type AlertFixtures, alertFixtures } from './alert-fixtures';
import { bearer, createTestApp, login, type TestApp } from './test-app';

export interface ChannelBody {
  id: string;
  name: string;
  kind: string;
  secret?: string;
  lastError: string | null;
  [field: string]: unknown;
}

/**
 * One app without mail (the administrator's notify off), local HTTP receivers, and helpers to
 * place certificates in time and create notification channels (docs/api-contract.md section 17).
 */
export interface ChannelWorld extends AlertFixtures {
  t: TestApp;
  admin: string;
  receiver(answer?: (request: ReceivedRequest, index: number) => ReceiverAnswer): Promise<HttpReceiver>;
  createChannel(body: Record<string, unknown>): Promise<ChannelBody>;
  close(): Promise<void>;
}

export async function channelWorld(overrides: Partial<AppConfig> = {}): Promise<ChannelWorld> {
  const t = await createTestApp(overrides);
  const admin = await login(t);
  await t.http.put('/api/v1/me').set(bearer(admin)).send({ notify: false }).expect(200);
  const receivers: HttpReceiver[] = [];
  return {
    t,
    admin,
    receiver: async (answer) => {
      const receiver = await startHttpReceiver(answer);
      receivers.push(receiver);
      return receiver;
    },
    createChannel: async (body) =>
      (
        await t.http
          .post('/api/v1/notification-channels')
          .set(bearer(await login(t)))
          .send(body)
          .expect(201)
      ).body as ChannelBody,
    ...alertFixtures(t),
    close: async () => {
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await t.close();
    },
  };
}

/** Runs `test` in a channel world of its own, closed afterwards whatever the test did. */
export async function withChannelWorld(test: (w: ChannelWorld) => Promise<void>, overrides: Partial<AppConfig> = {}): Promise<void> {
  const w = await channelWorld(overrides);
  try {
    await test(w);
  } finally {
    await w.close();
  }
}
