import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { type HttpReceiver, type ReceiverAnswer, type ReceivedRequest, startHttpReceiver } from '@certkeeper/net/testing';
import type { AppConfig } from '../../src/config/app-config';
import { DAY, HOUR } from './fake-clock';
import { bearer, createTestApp, login, type TestApp } from './test-app';

export type DatedCertificate = MintedCertificate & { notBefore: Date; notAfter: Date };

export interface RunTotals {
  alertsSent: number;
  alreadySent: number;
  failed: number;
  failures: { reason: string; replyCode: number | null; count: number }[];
}

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
export interface ChannelWorld {
  t: TestApp;
  admin: string;
  receiver(answer?: (request: ReceivedRequest, index: number) => ReceiverAnswer): Promise<HttpReceiver>;
  createChannel(body: Record<string, unknown>): Promise<ChannelBody>;
  expiringIn(days: number, cn: string): Promise<DatedCertificate>;
  onEndpoint(name: string, minted: MintedCertificate, tags?: string[]): Promise<string>;
  run(): Promise<RunTotals>;
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
    expiringIn: async (days, cn) => {
      const notAfter = new Date(Math.floor((t.clock.now().getTime() + days * DAY + HOUR) / 1000) * 1000);
      const notBefore = new Date(notAfter.getTime() - 400 * DAY);
      return { ...(await mintCertificate({ subject: `CN=${cn}`, notBefore, notAfter, sans: [cn] })), notBefore, notAfter };
    },
    onEndpoint: async (name, minted, tags = []) => {
      const session = await login(t);
      const id = (
        (await t.http.post('/api/v1/endpoints').set(bearer(session)).send({ name, type: 'manual', tags }).expect(201)).body as {
          id: string;
        }
      ).id;
      await t.http
        .post(`/api/v1/endpoints/${id}/certificate`)
        .set(bearer(session))
        .set('Content-Type', 'application/x-pem-file')
        .send(minted.pem)
        .expect(201);
      return id;
    },
    // A fresh session each time: tests move the clock by days, past the JWT lifetime.
    run: async () =>
      (
        await t.http
          .post('/api/v1/alerts/run')
          .set(bearer(await login(t)))
          .expect(200)
      ).body as RunTotals,
    close: async () => {
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await t.close();
    },
  };
}
