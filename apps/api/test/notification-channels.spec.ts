import { createHash } from 'node:crypto';
import type { MintedCertificate } from '@certkeeper/domain/testing';
import { parseOutboundDeny } from '@certkeeper/net';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { DAY, HOUR } from './support/fake-clock';
import { type ChannelWorld, channelWorld, withChannelWorld } from './support/channel-world';
import { bearer, createUser, login } from './support/test-app';

const fingerprintOf = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

interface Delivery {
  eventType: string;
  fingerprint: string | null;
  threshold: number | null;
  status: string;
  httpStatus: number | null;
  error: string | null;
}

async function deliveriesOf(w: ChannelWorld, id: string): Promise<Delivery[]> {
  // A fresh session: tests move the clock by days, past the JWT lifetime.
  return (
    await w.t.http
      .get(`/api/v1/notification-channels/${id}/deliveries`)
      .set(bearer(await login(w.t)))
      .expect(200)
  ).body as Delivery[];
}

describe('notification channels as resources', () => {
  let w: ChannelWorld;
  beforeAll(async () => {
    w = await channelWorld();
  });
  afterAll(() => w.close());

  const channels = () => w.t.http.post('/api/v1/notification-channels').set(bearer(w.admin));

  it('create a webhook with a generated secret shown once, and show only its host and whether a secret is set', async () => {
    const created = await w.createChannel({ name: 'hooks', kind: 'webhook', url: 'https://hooks.example.com:8443/in/abc?key=k1' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(() => new Webhook(created.secret!)).not.toThrow();
    const shown = (await w.t.http.get(`/api/v1/notification-channels/${created.id}`).set(bearer(w.admin)).expect(200)).body as Record<
      string,
      unknown
    >;
    expect(shown).toMatchObject({
      name: 'hooks',
      kind: 'webhook',
      enabled: true,
      urlHost: 'hooks.example.com:8443',
      secretSet: true,
      tags: [],
      mode: 'immediate',
      digestHour: 8,
      lastDeliveryAt: null,
      lastError: null,
    });
    expect(shown.events).toEqual(expect.arrayContaining(['cert_expiring', 'cert_expired']));
    expect(shown).not.toHaveProperty('url');
    expect(shown).not.toHaveProperty('secret');
    // Sealed at rest: neither the URL's path nor the secret is in the row.
    const [row] = await w.t.app
      .get(DataSource)
      .query<Record<string, unknown>[]>('SELECT * FROM notification_channels WHERE id = $1', [created.id]);
    expect(JSON.stringify(row)).not.toContain('/in/abc');
    expect(JSON.stringify(row)).not.toContain(created.secret!.slice(6));
    const list = (await w.t.http.get('/api/v1/notification-channels').set(bearer(w.admin)).expect(200)).body as unknown[];
    expect(JSON.stringify(list)).not.toContain('/in/abc');
  });

  it('refuse what breaks the rules with a sentence each, and a taken name with 409', async () => {
    const refused = async (body: Record<string, unknown>, sentence: string) => {
      const response = await channels().send(body).expect(400);
      expect(response.type).toBe('text/plain');
      expect(response.text).toContain(sentence);
    };
    await refused({ name: 'p', kind: 'pagerduty' }, 'secret is required: the PagerDuty routing key');
    await refused({ name: 's', kind: 'slack', url: 'https://hooks.slack.example/x', secret: 'abc' }, 'a slack channel takes no secret');
    await refused(
      { name: 'w', kind: 'webhook', url: 'https://x.example/', secret: 'whsec_short' },
      'secret must be whsec_ followed by the base64 of 24 to 64 bytes',
    );
    await refused(
      { name: 'd', kind: 'webhook', url: 'https://x.example/', mode: 'daily' },
      'mode daily is for slack, teams, ntfy channels only',
    );
    await refused({ name: 'e', kind: 'slack', url: 'https://x.example/', events: [] }, 'events must name at least one event type');
    await refused({ name: 'e', kind: 'slack', url: 'https://x.example/', events: ['cert_lost'] }, 'each of events must be one of');
    await refused({ name: 'h', kind: 'slack', url: 'https://x.example/', digestHour: 24 }, 'digestHour must not be greater than 23');
    await refused({ name: 'u', kind: 'slack', url: 'ftp://x.example/' }, 'url must be an http or https URL');
    await refused({ name: 'k', kind: 'email', url: 'https://x.example/' }, 'kind must be one of webhook, slack, teams, ntfy, pagerduty');
    await refused({ name: 'x', kind: 'slack', url: 'https://x.example/', extra: 1 }, 'property extra should not exist');
    await w.createChannel({ name: 'taken', kind: 'slack', url: 'https://hooks.slack.example/a' });
    const taken = await channels().send({ name: 'taken', kind: 'teams', url: 'https://teams.example/b' }).expect(409);
    expect(taken.text).toContain('A notification channel with this name already exists.');
  });

  it('never let a stored secret follow a changed URL, and never change kind', async () => {
    const { id } = await w.createChannel({ name: 'pd-move', kind: 'pagerduty', secret: 'routing-key-1' });
    const path = `/api/v1/notification-channels/${id}`;
    const moved = await w.t.http.patch(path).set(bearer(w.admin)).send({ url: 'https://evil.example/collect' }).expect(400);
    expect(moved.text).toContain('secret must be sent again when url changes');
    await w.t.http
      .put(path)
      .set(bearer(w.admin))
      .send({ name: 'pd-move', kind: 'pagerduty', url: 'https://evil.example/collect' })
      .expect(400);
    await w.t.http.patch(path).set(bearer(w.admin)).send({ kind: 'slack' }).expect(400);
    const renamed = await w.t.http.patch(path).set(bearer(w.admin)).send({ name: 'pd-renamed', enabled: false }).expect(200);
    expect(renamed.body).toMatchObject({ name: 'pd-renamed', enabled: false, urlHost: 'events.pagerduty.com', secretSet: true });
    const rehomed = await w.t.http
      .patch(path)
      .set(bearer(w.admin))
      .send({ url: 'https://pd.example/enqueue', secret: 'routing-key-2' })
      .expect(200);
    expect(rehomed.body).toMatchObject({ urlHost: 'pd.example', secretSet: true });
    // PUT: omitted settings return to their defaults, the stored URL and secret stay.
    const replaced = await w.t.http.put(path).set(bearer(w.admin)).send({ name: 'pd-renamed', kind: 'pagerduty' }).expect(200);
    expect(replaced.body).toMatchObject({ enabled: true, urlHost: 'pd.example', secretSet: true });
  });

  it('rotate a webhook secret, answered once, and audit every change without the URL or secret', async () => {
    const created = await w.createChannel({ name: 'rotating', kind: 'webhook', url: 'https://r.example/hook/path-token' });
    const rotated = await w.t.http.post(`/api/v1/notification-channels/${created.id}/rotate-secret`).set(bearer(w.admin)).expect(200);
    const secret = (rotated.body as { secret: string }).secret;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(created.secret);
    const slack = await w.createChannel({ name: 'no-rotation', kind: 'slack', url: 'https://hooks.slack.example/c' });
    await w.t.http.post(`/api/v1/notification-channels/${slack.id}/rotate-secret`).set(bearer(w.admin)).expect(400);
    await w.t.http.delete(`/api/v1/notification-channels/${created.id}`).set(bearer(w.admin)).expect(204);
    await w.t.http.get(`/api/v1/notification-channels/${created.id}`).set(bearer(w.admin)).expect(404);
    const audit = (await w.t.http.get('/api/v1/audit?limit=500').set(bearer(w.admin)).expect(200)).body as {
      items: { action: string; targetId: string }[];
    };
    const actions = audit.items.filter((entry) => entry.targetId === created.id).map((entry) => entry.action);
    expect(actions.sort()).toEqual(['channel:create', 'channel:delete', 'channel:rotate_secret']);
    const text = JSON.stringify(audit);
    for (const hidden of ['path-token', created.secret!.slice(6), secret.slice(6), 'routing-key-1', 'routing-key-2'])
      expect(text).not.toContain(hidden);
  });

  it('check the permission before reading the body', async () => {
    const operator = await createUser(w.t, 'operator');
    await w.t.http.get('/api/v1/notification-channels').set(bearer(operator.token)).expect(200);
    await w.t.http
      .post('/api/v1/notification-channels')
      .set(bearer(operator.token))
      .set('Content-Type', 'application/json')
      .send('{not json')
      .expect(403);
    await w.t.http
      .post('/api/v1/notification-channels')
      .set(bearer(operator.token))
      .send({ name: 'v', kind: 'slack', url: 'https://x.example/' })
      .expect(403);
    const viewer = await createUser(w.t, 'viewer');
    await w.t.http.get('/api/v1/notification-channels').set(bearer(viewer.token)).expect(403);
  });
});

describe('delivering to notification channels', () => {
  it('signs webhooks per Standard Webhooks with the data of the event, and keeps one webhook-id across a retry', async () => {
    await withChannelWorld(async (w) => {
      const receiver = await w.receiver((_request, index) => ({ status: index === 0 ? 500 : 204 }));
      const channel = await w.createChannel({ name: 'signed', kind: 'webhook', url: `${receiver.url}/hooks/certkeeper`, tags: [] });
      const minted = await w.expiringIn(12, 'signed.example.com');
      const endpointId = await w.onEndpoint('web', minted, ['env:prod']);

      expect(await w.run()).toEqual({
        alertsSent: 0,
        alreadySent: 0,
        failed: 1,
        failures: [{ reason: 'rejected', replyCode: 500, count: 1 }],
      });
      expect(await w.run()).toEqual({ alertsSent: 1, alreadySent: 0, failed: 0, failures: [] });
      expect(await w.run()).toEqual({ alertsSent: 0, alreadySent: 1, failed: 0, failures: [] });

      expect(receiver.requests).toHaveLength(2);
      const [first, second] = receiver.requests;
      expect(first.headers['webhook-id']).toBe(second.headers['webhook-id']);
      expect(second).toMatchObject({ method: 'POST', path: '/hooks/certkeeper' });
      expect(second.headers['content-type']).toBe('application/json');
      expect(second.headers['user-agent']).toMatch(/^Certkeeper\/\d+\.\d+\.\d+$/);
      const verified = new Webhook(channel.secret!).verify(second.body, {
        'webhook-id': second.headers['webhook-id'] as string,
        'webhook-timestamp': second.headers['webhook-timestamp'] as string,
        'webhook-signature': second.headers['webhook-signature'] as string,
      });
      expect(verified).toEqual({
        type: 'cert_expiring',
        id: second.headers['webhook-id'],
        timestamp: expect.stringMatching(/Z$/) as string,
        data: {
          certificate: {
            fingerprint: fingerprintOf(minted),
            commonName: 'signed.example.com',
            sans: ['signed.example.com'],
            issuerCommonName: 'signed.example.com',
            notBefore: minted.notBefore.toISOString(),
            notAfter: minted.notAfter.toISOString(),
            daysRemaining: 12,
          },
          threshold: 14,
          endpoints: [{ id: endpointId, name: 'web', type: 'manual', tags: ['env:prod'] }],
        },
      });
      // Another secret does not verify it.
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 9).toString('base64')}`).verify(second.body, {
          'webhook-id': second.headers['webhook-id'] as string,
          'webhook-timestamp': second.headers['webhook-timestamp'] as string,
          'webhook-signature': second.headers['webhook-signature'] as string,
        }),
      ).toThrow();

      expect(await deliveriesOf(w, channel.id)).toEqual([
        {
          id: expect.any(String),
          at: expect.any(String),
          eventType: 'cert_expiring',
          fingerprint: fingerprintOf(minted),
          threshold: 14,
          status: 'delivered',
          httpStatus: 204,
          error: null,
        },
        {
          id: expect.any(String),
          at: expect.any(String),
          eventType: 'cert_expiring',
          fingerprint: fingerprintOf(minted),
          threshold: 14,
          status: 'failed',
          httpStatus: 500,
          error: 'the receiver answered HTTP 500',
        },
      ]);
      const shown = (await w.t.http.get(`/api/v1/notification-channels/${channel.id}`).set(bearer(w.admin)).expect(200)).body as Record<
        string,
        unknown
      >;
      expect(shown.lastError).toBeNull();
      expect(shown.lastDeliveryAt).not.toBeNull();
    });
  });

  it('follows no redirect: a 3xx is a failure and the target hears nothing', async () => {
    await withChannelWorld(async (w) => {
      const target = await w.receiver();
      const redirecting = await w.receiver(() => ({ status: 307, headers: { location: `${target.url}/elsewhere` } }));
      const channel = await w.createChannel({ name: 'moved', kind: 'slack', url: `${redirecting.url}/services/T1/B2/slack-token` });
      await w.onEndpoint('web', await w.expiringIn(5, 'moved.example.com'));
      expect(await w.run()).toMatchObject({ alertsSent: 0, failed: 1, failures: [{ reason: 'rejected', replyCode: 307, count: 1 }] });
      expect(redirecting.requests).toHaveLength(1);
      expect(target.requests).toHaveLength(0);
      const [attempt] = await deliveriesOf(w, channel.id);
      expect(attempt).toMatchObject({
        status: 'failed',
        httpStatus: 307,
        error: 'the receiver answered HTTP 307, a redirect, which is not followed',
      });
    });
  });

  it('sends nothing where OUTBOUND_DENY forbids, and says so without the path', async () => {
    const deny = parseOutboundDeny('127.0.0.0/8');
    if (!deny.ok) throw new Error(deny.problem);
    await withChannelWorld(
      async (w) => {
        const receiver = await w.receiver();
        const channel = await w.createChannel({ name: 'denied', kind: 'ntfy', url: `${receiver.url}/deniedpathsecret` });
        await w.onEndpoint('web', await w.expiringIn(3, 'denied.example.com'));
        expect(await w.run()).toMatchObject({ failed: 1, failures: [{ reason: 'outbound-denied', replyCode: null, count: 1 }] });
        expect(receiver.requests).toHaveLength(0);
        const [attempt] = await deliveriesOf(w, channel.id);
        expect(attempt.error).toBe('refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8');
        expect(JSON.stringify(w.t.logs)).not.toContain('deniedpathsecret');
      },
      { outboundDeny: deny.value },
    );
  });

  it('gives up on a receiver that stalls past the 10-second deadline, and retries at the next run', async () => {
    await withChannelWorld(async (w) => {
      const receiver = await w.receiver((_request, index) => (index === 0 ? 'stall' : { status: 200 }));
      const channel = await w.createChannel({ name: 'stalling', kind: 'teams', url: `${receiver.url}/workflows/abc` });
      await w.onEndpoint('web', await w.expiringIn(20, 'stall.example.com'));
      const started = Date.now();
      expect(await w.run()).toMatchObject({ failed: 1, failures: [{ reason: 'timeout', replyCode: null, count: 1 }] });
      expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
      expect((await deliveriesOf(w, channel.id))[0]).toMatchObject({
        status: 'failed',
        httpStatus: null,
        error: 'no answer within 10 seconds',
      });
      expect(await w.run()).toMatchObject({ alertsSent: 1, failed: 0 });
      expect(receiver.requests).toHaveLength(2);
    });
  }, 60_000);

  it('keeps delivering to the other channels while one stalls, and asks the stalled one nothing more that run', async () => {
    await withChannelWorld(async (w) => {
      const stalling = await w.receiver(() => 'stall');
      const fast = await w.receiver();
      const slow = await w.createChannel({ name: 'stalling', kind: 'teams', url: `${stalling.url}/workflows/abc` });
      await w.createChannel({ name: 'fast', kind: 'slack', url: `${fast.url}/services/T/B/x` });
      // The stalling channel sorts first, so a job that delivered one at a time would serve it first.
      await w.t.app
        .get(DataSource)
        .query(`UPDATE notification_channels SET id = '00000000-0000-4000-8000-000000000000' WHERE id = $1`, [slow.id]);
      // Eight due: a channel takes 6 at once, so the stalling one holds a group and 2 wait behind it.
      for (let n = 0; n < 8; n += 1) await w.onEndpoint(`web-${n}`, await w.expiringIn(20, `stall-${n}.example.com`));

      const started = Date.now();
      const run = w.run();
      await eventually(
        () => fast.requests.length,
        (count) => count === 8,
        9_000,
      );
      // Every delivery to the fast channel arrived before the stalling channel's first deadline passed.
      expect(fast.requests).toHaveLength(8);
      expect(Date.now() - started).toBeLessThan(10_000);

      expect(await run).toEqual({ alertsSent: 8, alreadySent: 0, failed: 8, failures: [{ reason: 'timeout', replyCode: null, count: 8 }] });
      // One deadline for the requests under way; the rest waited for the next run instead of a deadline each.
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(stalling.requests).toHaveLength(6);
      expect(w.t.logs).toContainEqual(
        expect.objectContaining({ level: 'warn', channel_id: '00000000-0000-4000-8000-000000000000', reason: 'timeout', count: 2 }),
      );

      stalling.answer(() => ({ status: 200 }));
      expect(await w.run()).toEqual({ alertsSent: 8, alreadySent: 8, failed: 0, failures: [] });
      expect(stalling.requests).toHaveLength(14);
    });
  }, 60_000);

  it('records only the deliveries a channel accepted among those claimed together, and retries the one it refused', async () => {
    await withChannelWorld(async (w) => {
      // The three go at once, claimed in one transaction; the receiver refuses the second to arrive.
      const receiver = await w.receiver((_request, index) => ({ status: index === 1 ? 503 : 200 }));
      await w.createChannel({ name: 'grouped', kind: 'ntfy', url: `${receiver.url}/certs` });
      for (let n = 0; n < 3; n += 1) await w.onEndpoint(`group-${n}`, await w.expiringIn(20, `group-${n}.example.com`));

      expect(await w.run()).toEqual({
        alertsSent: 2,
        alreadySent: 0,
        failed: 1,
        failures: [{ reason: 'rejected', replyCode: 503, count: 1 }],
      });
      expect(receiver.requests).toHaveLength(3);
      expect(await w.run()).toEqual({ alertsSent: 1, alreadySent: 2, failed: 0, failures: [] });
      // The one sent again is the one refused, and no other.
      expect(receiver.requests).toHaveLength(4);
      expect(receiver.requests[3].body).toBe(receiver.requests[1].body);
    });
  });

  it('keeps a run’s connections to each channel open for its next deliveries, never sharing one between channels', async () => {
    await withChannelWorld(async (w) => {
      // Two channels on one receiver: the same origin, told apart by their paths.
      const receiver = await w.receiver();
      await w.createChannel({ name: 'first', kind: 'slack', url: `${receiver.url}/services/first` });
      await w.createChannel({ name: 'second', kind: 'slack', url: `${receiver.url}/services/second` });
      // Three groups of 6 to each channel.
      for (let n = 0; n < 18; n += 1) await w.onEndpoint(`kept-${n}`, await w.expiringIn(20, `kept-${n}.example.com`));

      expect(await w.run()).toEqual({ alertsSent: 36, alreadySent: 0, failed: 0, failures: [] });
      const pathsByConnection = new Map<number, Set<string>>();
      for (const { connection, path } of receiver.requests) {
        pathsByConnection.set(connection, (pathsByConnection.get(connection) ?? new Set()).add(path));
      }
      // At most one connection per request under way to a channel (6), instead of one per delivery.
      expect(pathsByConnection.size).toBeLessThanOrEqual(12);
      for (const paths of pathsByConnection.values()) expect(paths.size).toBe(1);
    });
  });

  it('posts Slack, Teams and ntfy messages from their templates, and routes by tags and events', async () => {
    await withChannelWorld(async (w) => {
      const slack = await w.receiver();
      const teams = await w.receiver();
      const ntfy = await w.receiver();
      await w.createChannel({ name: 'slack-prod', kind: 'slack', url: `${slack.url}/services/T/B/x`, tags: ['env:prod'] });
      await w.createChannel({ name: 'teams-all', kind: 'teams', url: `${teams.url}/webhook` });
      await w.createChannel({
        name: 'ntfy-expired',
        kind: 'ntfy',
        url: `${ntfy.url}/certs`,
        secret: 'tk_ntfy_token',
        events: ['cert_expired'],
      });
      await w.onEndpoint('prod-web', await w.expiringIn(5, '<!channel>.prod.example.com'), ['env:prod']);
      await w.onEndpoint('test-web', await w.expiringIn(-2, 'test.example.com'), ['env:test']);

      expect(await w.run()).toEqual({ alertsSent: 4, alreadySent: 0, failed: 0, failures: [] });

      // Slack: only the prod endpoint, its text escaped so that nobody is mentioned.
      expect(slack.requests).toHaveLength(1);
      const { text } = JSON.parse(slack.requests[0].body) as { text: string };
      expect(text.split('\n')[0]).toBe('*Certificate for &lt;!channel&gt;.prod.example.com expires in 5 days*');
      expect(text).toContain('Used by: prod-web');
      expect(text).not.toContain('<!channel>');

      // Teams: both, as Adaptive Cards 1.4.
      expect(teams.requests).toHaveLength(2);
      const card = JSON.parse(teams.requests[0].body) as {
        type: string;
        attachments: { contentType: string; content: { type: string; version: string; body: { type: string; text: string }[] } }[];
      };
      expect(card.type).toBe('message');
      expect(card.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
      expect(card.attachments[0].content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
      expect(card.attachments[0].content.body.every((block) => block.type === 'TextBlock')).toBe(true);
      expect(teams.requests.map((r) => (JSON.parse(r.body) as typeof card).attachments[0].content.body[0].text).sort()).toEqual([
        'Certificate for <!channel>.prod.example.com expires in 5 days',
        'Certificate for test.example.com has expired',
      ]);

      // ntfy: only cert_expired, as text with its headers and the token.
      expect(ntfy.requests).toHaveLength(1);
      expect(ntfy.requests[0].headers).toMatchObject({
        title: 'Certificate for test.example.com has expired',
        priority: '5',
        tags: 'rotating_light,cert_expired',
        authorization: 'Bearer tk_ntfy_token',
      });
      expect(ntfy.requests[0].headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(ntfy.requests[0].body).toContain('The certificate for test.example.com expired on');
    });
  });

  it('uses a saved chat template, and lists templates for every chat channel', async () => {
    await withChannelWorld(async (w) => {
      const templates = (await w.t.http.get('/api/v1/notification-templates').set(bearer(w.admin)).expect(200)).body as {
        eventType: string;
        channel: string;
        body: string;
      }[];
      expect(new Set(templates.map((t) => t.channel))).toEqual(new Set(['email', 'slack', 'teams', 'ntfy', 'pagerduty']));
      expect(templates.find((t) => t.channel === 'slack' && t.eventType === 'cert_expiring')!.body).toContain(
        'Days remaining: {{ .DaysRemaining }}',
      );
      await w.t.http.get('/api/v1/notification-templates/cert_expiring/webhook').set(bearer(w.admin)).expect(404);
      await w.t.http
        .put('/api/v1/notification-templates/cert_expiring/ntfy')
        .set(bearer(w.admin))
        .send({ subject: '{{ .CommonName }}: {{ .DaysRemaining }}d', body: 'Renew {{ .CommonName }} on {{ .EndpointName }}.' })
        .expect(200);
      const ntfy = await w.receiver();
      await w.createChannel({ name: 'ntfy', kind: 'ntfy', url: `${ntfy.url}/topic` });
      await w.onEndpoint('api', await w.expiringIn(6, 'api.example.com'));
      await w.run();
      expect(ntfy.requests[0].headers).toMatchObject({ title: 'api.example.com: 6d', priority: '4', tags: 'warning,cert_expiring' });
      expect(ntfy.requests[0].headers).not.toHaveProperty('authorization');
      expect(ntfy.requests[0].body).toBe('Renew api.example.com on api.');
    });
  });

  it('previews a chat template as its channel shows it, built as its sender builds the message', async () => {
    await withChannelWorld(async (w) => {
      const preview = async (eventType: string, channel: string) =>
        (
          await w.t.http
            .post(`/api/v1/notification-templates/${eventType}/${channel}/preview`)
            .set(bearer(w.admin))
            .send({ subject: '<{{ .CommonName }}> & co', body: 'Renew {{ .CommonName }} now.' })
            .expect(200)
        ).body as { subject: string; text: string; chat: unknown };
      expect((await preview('cert_expiring', 'email')).chat).toBeNull();
      // Slack: the mrkdwn text the sender posts, values escaped.
      expect((await preview('cert_expiring', 'slack')).chat).toEqual({
        title: '*&lt;www.example.com&gt; &amp; co*\n\nRenew www.example.com now.',
        blocks: [],
        priority: null,
        tags: [],
        severity: null,
      });
      expect((await preview('cert_expiring', 'teams')).chat).toMatchObject({
        title: '<www.example.com> & co',
        blocks: ['Renew www.example.com now.'],
      });
      expect((await preview('cert_expired', 'ntfy')).chat).toMatchObject({
        title: '<www.example.com> & co',
        blocks: ['Renew www.example.com now.'],
        priority: 5,
        tags: ['rotating_light', 'cert_expired'],
      });
      expect((await preview('cert_expiring', 'pagerduty')).chat).toMatchObject({ title: '<www.example.com> & co', severity: 'warning' });
    });
  });

  it('triggers PagerDuty once per certificate event, and resolves once when the certificate is no longer current in scope', async () => {
    await withChannelWorld(async (w) => {
      const pagerduty = await w.receiver(() => ({ status: 202, body: '{"status":"success"}' }));
      const channel = await w.createChannel({
        name: 'pd',
        kind: 'pagerduty',
        url: `${pagerduty.url}/v2/enqueue`,
        secret: 'R0UTINGKEY0000000000000000000000',
      });
      const old = await w.expiringIn(3, 'pd.example.com');
      const endpointId = await w.onEndpoint('pd-web', old);
      expect(await w.run()).toMatchObject({ alertsSent: 1 });
      expect(JSON.parse(pagerduty.requests[0].body)).toMatchObject({
        routing_key: 'R0UTINGKEY0000000000000000000000',
        event_action: 'trigger',
        dedup_key: `certkeeper:${fingerprintOf(old)}`,
        payload: { summary: 'Certificate for pd.example.com expires in 3 days', source: 'certkeeper', severity: 'error' },
      });
      expect(await w.run()).toMatchObject({ alertsSent: 0, alreadySent: 1 });
      expect(pagerduty.requests).toHaveLength(1);

      // Renewed: the old certificate leaves the endpoint, so its incident resolves, once.
      const renewed = await w.expiringIn(90, 'pd.example.com');
      await w.t.http
        .post(`/api/v1/endpoints/${endpointId}/certificate`)
        .set(bearer(w.admin))
        .set('Content-Type', 'application/x-pem-file')
        .send(renewed.pem)
        .expect(201);
      // The nightly purge of dedup records leaves those of an open incident, which its resolve needs.
      const purge = await w.t.http
        .post('/api/v1/maintenance/tasks/purge-alert-records/run')
        .set(bearer(await login(w.t)))
        .expect(200);
      expect((purge.body as { counts: unknown }).counts).toEqual({ alertRecords: 0 });
      pagerduty.answer((_request, index) => ({ status: index === 1 ? 503 : 202 }));
      await w.run();
      await w.run();
      await w.run();
      const resolves = pagerduty.requests.filter((r) => (JSON.parse(r.body) as { event_action: string }).event_action === 'resolve');
      expect(resolves).toHaveLength(2);
      expect(JSON.parse(resolves[1].body)).toEqual({
        routing_key: 'R0UTINGKEY0000000000000000000000',
        event_action: 'resolve',
        dedup_key: `certkeeper:${fingerprintOf(old)}`,
      });
      // Resolved: the next purge takes its records, and its resolution with them.
      await w.t.http
        .post('/api/v1/maintenance/tasks/purge-alert-records/run')
        .set(bearer(await login(w.t)))
        .expect(200);
      expect(await w.t.app.get(DataSource).query('SELECT 1 FROM pagerduty_resolutions')).toHaveLength(0);
      const statuses = (await deliveriesOf(w, channel.id)).map((d) => [d.eventType, d.status, d.httpStatus]);
      expect(statuses).toEqual([
        ['resolve', 'resolved', 202],
        ['resolve', 'failed', 503],
        ['cert_expiring', 'delivered', 202],
      ]);
      const metrics = (await w.t.http.get('/metrics').set(bearer(w.admin)).expect(200)).text;
      expect(metrics).toContain('certkeeper_notifications_total{kind="pagerduty",status="delivered"} 1');
      expect(metrics).toContain('certkeeper_notifications_total{kind="pagerduty",status="resolved"} 1');
      expect(metrics).toContain('certkeeper_notifications_total{kind="pagerduty",status="failed"} 1');
    });
  });

  it('gathers a daily channel’s alerts into one message at the first run in or after its hour, each recorded once', async () => {
    await withChannelWorld(async (w) => {
      const slack = await w.receiver((_request, index) => ({ status: index === 0 ? 500 : 200 }));
      // Created at 03:00 UTC: its first digest is at today's 09:00.
      const today = new Date(Date.UTC(2031, 2, 10));
      w.t.clock.set(new Date(today.getTime() + 3 * HOUR));
      const channel = await w.createChannel({
        name: 'digest',
        kind: 'slack',
        url: `${slack.url}/services/digest`,
        mode: 'daily',
        digestHour: 9,
      });
      await w.onEndpoint('one', await w.expiringIn(5, 'one.example.com'));
      await w.onEndpoint('two', await w.expiringIn(25, 'two.example.com'));

      expect(await w.run()).toEqual({ alertsSent: 0, alreadySent: 0, failed: 0, failures: [] });
      expect(slack.requests).toHaveLength(0);

      w.t.clock.set(new Date(today.getTime() + 9 * HOUR + 5 * 60_000));
      expect(await w.run()).toMatchObject({ alertsSent: 0, failed: 2, failures: [{ reason: 'rejected', replyCode: 500, count: 2 }] });
      expect(await w.run()).toEqual({ alertsSent: 2, alreadySent: 0, failed: 0, failures: [] });
      expect(slack.requests).toHaveLength(2);
      const { text } = JSON.parse(slack.requests[1].body) as { text: string };
      expect(text.split('\n')[0]).toBe('*Certkeeper daily digest: 2 certificate alerts*');
      expect(text).toContain('Certificate for one.example.com expires in 4 days');
      expect(text).toContain('Certificate for two.example.com expires in 24 days');

      // A third certificate later that day waits for tomorrow's digest; the two sent are never sent again.
      await w.onEndpoint('three', await w.expiringIn(10, 'three.example.com'));
      w.t.clock.advance(3 * HOUR);
      expect(await w.run()).toEqual({ alertsSent: 0, alreadySent: 2, failed: 0, failures: [] });
      w.t.clock.set(new Date(today.getTime() + DAY + 9 * HOUR));
      expect(await w.run()).toMatchObject({ alertsSent: 1, alreadySent: 2 });
      expect(slack.requests).toHaveLength(3);
      expect((JSON.parse(slack.requests[2].body) as { text: string }).text).toContain('1 certificate alert*');
      const logged = await deliveriesOf(w, channel.id);
      expect(logged.map((d) => [d.eventType, d.status, d.fingerprint])).toEqual([
        ['digest', 'delivered', null],
        ['digest', 'delivered', null],
        ['digest', 'failed', null],
      ]);
      const rows = await w.t.app
        .get(DataSource)
        .query<unknown[]>('SELECT 1 FROM notification_deliveries WHERE channel_id = $1', [channel.id]);
      expect(rows).toHaveLength(3);
    });
  });

  it('serves channels with mail disabled, and answers the test route with 204 or 502', async () => {
    await withChannelWorld(async (w) => {
      const receiver = await w.receiver((_request, index) => ({ status: index === 0 ? 200 : 418 }));
      const channel = await w.createChannel({ name: 'tested', kind: 'webhook', url: `${receiver.url}/in` });
      await w.t.http.post(`/api/v1/notification-channels/${channel.id}/test`).set(bearer(w.admin)).expect(204);
      const test = receiver.requests[0];
      const verified = new Webhook(channel.secret!).verify(test.body, {
        'webhook-id': test.headers['webhook-id'] as string,
        'webhook-timestamp': test.headers['webhook-timestamp'] as string,
        'webhook-signature': test.headers['webhook-signature'] as string,
      });
      expect(verified).toMatchObject({ type: 'test' });
      const failed = await w.t.http.post(`/api/v1/notification-channels/${channel.id}/test`).set(bearer(w.admin)).expect(502);
      expect(failed.text).toMatch(/^The test message failed: the receiver answered HTTP 418\. Request id: [0-9a-f-]+\n$/);
      const operator = await createUser(w.t, 'operator');
      await w.t.http.post(`/api/v1/notification-channels/${channel.id}/test`).set(bearer(operator.token)).expect(403);
      expect((await deliveriesOf(w, channel.id)).map((d) => [d.eventType, d.status])).toEqual([
        ['test', 'failed'],
        ['test', 'delivered'],
      ]);
    });
  });

  it('shows no URL path, token or key in any log line, error body, delivery row or dashboard', async () => {
    await withChannelWorld(async (w) => {
      const refusing = await w.receiver(() => ({ status: 403, body: 'invalid_token S3CRET-ECHO' }));
      const hidden = ['T0SECRET/B0SECRET/slackpathsecret', 'ntfy-token-secret', 'pd-routing-key-secret', 'ntfypathsecret', 'S3CRET-ECHO'];
      const slack = await w.createChannel({ name: 's', kind: 'slack', url: `${refusing.url}/services/T0SECRET/B0SECRET/slackpathsecret` });
      await w.createChannel({ name: 'n', kind: 'ntfy', url: `${refusing.url}/ntfypathsecret`, secret: 'ntfy-token-secret' });
      await w.createChannel({ name: 'p', kind: 'pagerduty', url: `${refusing.url}/enqueue`, secret: 'pd-routing-key-secret' });
      // Nothing listens here: a connection failure names no URL either.
      await w.createChannel({ name: 'gone', kind: 'webhook', url: 'http://127.0.0.1:9/hooks/gonepathsecret' });
      await w.onEndpoint('web', await w.expiringIn(4, 'logs.example.com'));
      const totals = await w.run();
      expect(totals).toMatchObject({ alertsSent: 0, failed: 4 });
      const failed = await w.t.http.post(`/api/v1/notification-channels/${slack.id}/test`).set(bearer(w.admin)).expect(502);
      const dashboard = await w.t.http.get('/api/v1/dashboard').set(bearer(w.admin)).expect(200);
      const failing = (dashboard.body as { alerting: { failingChannels: { name: string; kind: string; lastError: string }[] } }).alerting
        .failingChannels;
      expect(failing.map((c) => [c.name, c.kind])).toEqual([
        ['gone', 'webhook'],
        ['n', 'ntfy'],
        ['p', 'pagerduty'],
        ['s', 'slack'],
      ]);
      expect(failing.find((c) => c.name === 'gone')!.lastError).toBe('the receiver refused the connection (ECONNREFUSED)');
      const rows = await w.t.app.get(DataSource).query<unknown[]>('SELECT * FROM notification_channel_deliveries');
      const everything = [
        JSON.stringify(w.t.logs),
        failed.text,
        JSON.stringify(dashboard.body),
        JSON.stringify(rows),
        JSON.stringify(totals),
      ].join('\n');
      for (const secret of [...hidden, 'gonepathsecret']) expect(everything).not.toContain(secret);
      expect(w.t.logs.some((line) => String(line.msg).includes('not sent, retried on the next run: the receiver answered HTTP 403'))).toBe(
        true,
      );
    });
  });
});
