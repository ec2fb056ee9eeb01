import { type HttpReceiver, startHttpReceiver } from '@certkeeper/net/testing';
import { Client } from 'pg';
import { eventually } from './support/eventually';
import { type ReplicaPair, replicaPair } from './support/replica-pair';
import { type RunningService, stopService } from './support/service-process';

const ADMIN = { email: 'admin@channel-replicas.test', password: 'replica-password-1' };

interface Totals {
  alertsSent: number;
  alreadySent: number;
  failed: number;
}

/**
 * Notification channels on two API processes sharing one database, as two replicas behind a load
 * balancer (docs/api-contract.md section 17): runs started together on both while the receivers
 * are slow deliver everything once, and a replica killed while a receiver holds its requests loses
 * nothing; the requests in flight go again with the same webhook-id.
 */
describe('notification channels on two replicas', () => {
  const replicas = replicaPair('channel-replicas', ADMIN);
  const { call, receiver, channel, disableChannels, expiringCertificates, runOn, deliveredTo } = channelHelpers(replicas);

  it('delivers every event once on every channel while slow receivers answer runs started together on both replicas', async () => {
    const slow = () => ({ status: 200, delayMs: 400 });
    const webhook = await receiver(slow);
    const slack = await receiver(slow);
    const ntfy = await receiver(slow);
    await channel({ name: 'hook', kind: 'webhook', url: `${webhook.url}/in`, tags: ['team:slow'] });
    await channel({ name: 'slack', kind: 'slack', url: `${slack.url}/services/x`, tags: ['team:slow'] });
    await channel({ name: 'ntfy', kind: 'ntfy', url: `${ntfy.url}/certs`, tags: ['team:slow'] });
    await expiringCertificates('slow', 8, 'team:slow');

    const [onA, onB] = await Promise.all([runOn(replicas.a), runOn(replicas.b)]);
    expect([onA.status, onB.status]).toEqual([200, 200]);
    // Whichever ran first sent all 24; the other found them delivered.
    expect(onA.totals.alertsSent + onB.totals.alertsSent).toBe(24);
    expect(onA.totals.failed + onB.totals.failed).toBe(0);
    for (const one of [webhook, slack, ntfy]) expect(one.requests).toHaveLength(8);
    expect(new Set(webhook.requests.map((r) => r.headers['webhook-id'])).size).toBe(8);
    expect(new Set(slack.requests.map((r) => r.body)).size).toBe(8);
    expect(await runOn(replicas.a)).toEqual({ status: 200, totals: { alertsSent: 0, alreadySent: 24, failed: 0, failures: [] } });
    await disableChannels();
  }, 120_000);

  it('loses nothing when a replica is killed while a receiver holds its requests, and resends those with the same webhook-id', async () => {
    // The first two are answered; the receiver holds every later one, so the replica dies with them in flight.
    const hook: HttpReceiver = await receiver((_request, index) => (index < 2 ? { status: 200 } : 'stall'));
    const id = await channel({ name: 'crash-hook', kind: 'webhook', url: `${hook.url}/in`, tags: ['team:crash'] });
    await expiringCertificates('crash', 6, 'team:crash');

    const run = call(replicas.a, 'POST', '/alerts/run').catch(() => undefined);
    expect(
      await eventually(
        () => deliveredTo(id),
        (count) => count === 2,
        30_000,
      ),
    ).toBe(2);
    expect(
      await eventually(
        () => hook.requests.length,
        (count) => count > 2,
        30_000,
      ),
    ).toBeGreaterThan(2);
    await stopService(replicas.a, 'SIGKILL');
    await run;
    // A request the replica had written before it died may still be on its way in.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const answered = hook.requests.slice(0, 2).map((request) => request.headers['webhook-id']);
    const interrupted = hook.requests.slice(2).map((request) => request.headers['webhook-id']);
    hook.answer(() => ({ status: 200 }));

    const afterCrash = await runOn(replicas.b);
    expect(afterCrash.status).toBe(200);
    // The two answered before the crash are not sent again; those in flight and those never tried are.
    expect(afterCrash.totals).toEqual({ alertsSent: 4, alreadySent: 2, failed: 0, failures: [] });
    const ids = hook.requests.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(2 + interrupted.length + 4);
    expect(new Set(ids).size).toBe(6);
    for (const sent of answered) expect(ids.filter((other) => other === sent)).toHaveLength(1);
    for (const resent of interrupted) expect(ids.filter((other) => other === resent)).toHaveLength(2);
    expect(await runOn(replicas.b)).toEqual({ status: 200, totals: { alertsSent: 0, alreadySent: 6, failed: 0, failures: [] } });
  }, 120_000);
});

describe('a claim group on a replica killed mid-run', () => {
  const replicas = replicaPair('channel-group-crash', ADMIN);
  const { receiver, channel, expiringCertificates, runOn, deliveredTo } = channelHelpers(replicas);

  it('commits nothing of a group while one of its requests is held, and resends the accepted ones with their webhook-id after a crash', async () => {
    // Three deliveries to one channel go at once, claimed together: two are answered, the third held.
    const hook = await receiver((_request, index) => (index < 2 ? { status: 200 } : 'stall'));
    const id = await channel({ name: 'group-hook', kind: 'webhook', url: `${hook.url}/in`, tags: ['team:group'] });
    await expiringCertificates('group', 3, 'team:group');

    const run = replicas.call(replicas.a, 'POST', '/alerts/run').catch(() => undefined);
    expect(
      await eventually(
        () => hook.requests.length,
        (count) => count === 3,
        30_000,
      ),
    ).toBe(3);
    expect(await deliveredTo(id)).toBe(0);
    await stopService(replicas.a, 'SIGKILL');
    await run;
    const first = hook.requests.map((request) => request.headers['webhook-id']);
    hook.answer(() => ({ status: 200 }));

    // Nothing was recorded, so all three go again, each with the webhook-id it had.
    expect(await runOn(replicas.b)).toEqual({ status: 200, totals: { alertsSent: 3, alreadySent: 0, failed: 0, failures: [] } });
    const again = hook.requests.slice(3).map((request) => request.headers['webhook-id']);
    expect(new Set(first).size).toBe(3);
    expect(again.sort()).toEqual([...first].sort());
    expect(await runOn(replicas.b)).toEqual({ status: 200, totals: { alertsSent: 0, alreadySent: 3, failed: 0, failures: [] } });
  }, 120_000);
});

/** What the specs above do on their pair: channels, receivers and certificates, runs, and the outbox read back. */
function channelHelpers(replicas: ReplicaPair) {
  const call = replicas.call;
  const receivers: HttpReceiver[] = [];
  afterAll(() => Promise.all(receivers.map((receiver) => receiver.close())));
  beforeAll(async () => {
    // Channels only: the administrator's e-mail stays out of the counts.
    expect((await call(replicas.b, 'PUT', '/me', JSON.stringify({ notify: false }))).status).toBe(200);
  });

  async function receiver(...args: Parameters<typeof startHttpReceiver>): Promise<HttpReceiver> {
    const started = await startHttpReceiver(...args);
    receivers.push(started);
    return started;
  }

  async function channel(body: Record<string, unknown>): Promise<string> {
    const created = await call(replicas.b, 'POST', '/notification-channels', JSON.stringify(body));
    expect(created.status).toBe(201);
    return (created.body as { id: string }).id;
  }

  async function disableChannels(): Promise<void> {
    const list = (await call(replicas.b, 'GET', '/notification-channels')).body as { id: string }[];
    for (const { id } of list)
      expect((await call(replicas.b, 'PATCH', `/notification-channels/${id}`, JSON.stringify({ enabled: false }))).status).toBe(200);
  }

  /** Manual endpoints tagged `tag` with certificates 10 days from expiry: one 14-day event each. */
  const expiringCertificates = (prefix: string, count: number, tag: string) => replicas.expiringCertificates(prefix, count, [tag]);

  const runOn = async (replica: RunningService) => {
    const { status, body } = await call(replica, 'POST', '/alerts/run');
    return { status, totals: body as Totals };
  };

  /** The outbox rows of a channel: the deliveries committed as sent. */
  async function deliveredTo(channelId: string): Promise<number> {
    const client = new Client({ connectionString: replicas.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM notification_deliveries WHERE channel_id = $1',
        [channelId],
      );
      return rows[0].count;
    } finally {
      await client.end();
    }
  }

  return { call, receiver, channel, disableChannels, expiringCertificates, runOn, deliveredTo };
}
