import { parseOutboundDeny } from '@certkeeper/net';
import { DataSource } from 'typeorm';
import { freePort } from '../src/common/net/free-port';
import { smtpTimeouts } from '../src/modules/mail/mailer';
import { startSmtpServer, type TestSmtpServer } from './support/smtp';
import { startTarpit } from './support/tls-servers';
import { bearer, createTestApp, createUser, login, ADMIN_EMAIL, type TestApp, createSignedInTestApp } from './support/test-app';

describe('settings', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => ({ t, admin } = await createSignedInTestApp()));
  afterAll(() => t.close());

  describe('alert thresholds', () => {
    it('default to 30, 14, 7, 1 and are stored sorted descending', async () => {
      expect((await t.http.get('/api/v1/settings/alert-thresholds').set(bearer(admin)).expect(200)).body).toEqual([30, 14, 7, 1]);
      expect((await t.http.put('/api/v1/settings/alert-thresholds').set(bearer(admin)).send([3, 60, 10]).expect(200)).body).toEqual([
        60, 10, 3,
      ]);
      expect((await t.http.get('/api/v1/settings/alert-thresholds').set(bearer(admin)).expect(200)).body).toEqual([60, 10, 3]);
      await t.http.put('/api/v1/settings/alert-thresholds').set(bearer(admin)).send([30, 14, 7, 1]).expect(200);
    });

    it.each([[[]], [[7, 7]], [[0]], [[3651]], [[1.5]], [['7']], [Array.from({ length: 21 }, (_, i) => i + 1)], [{ thresholds: [7] }]])(
      'refuse %j with 400',
      async (body) => {
        const response = await t.http.put('/api/v1/settings/alert-thresholds').set(bearer(admin)).send(body).expect(400);
        expect(response.headers['content-type']).toMatch(/^text\/plain/);
      },
    );

    it('need settings:view to read and settings:edit to change', async () => {
      const viewer = await createUser(t, 'viewer');
      const operator = await createUser(t, 'operator');
      await t.http.get('/api/v1/settings/alert-thresholds').set(bearer(viewer.token)).expect(403);
      await t.http.get('/api/v1/settings/alert-thresholds').set(bearer(operator.token)).expect(200);
      await t.http.put('/api/v1/settings/alert-thresholds').set(bearer(operator.token)).send([7]).expect(403);
    });
  });

  describe('mail', () => {
    let smtp: TestSmtpServer;

    beforeAll(async () => {
      smtp = await startSmtpServer({ auth: { user: 'relay-user', pass: 'relay-secret-1' } });
    });
    afterAll(() => smtp.close());

    /** A 502's sentence without the request id every 5xx body ends with. */
    const sentenceOf = (text: string) => text.replace(/ Request id: [0-9a-f-]+\n?$/, '');

    const mailSettings = (overrides: Record<string, unknown> = {}) => ({
      enabled: true,
      host: '127.0.0.1',
      port: smtp.port,
      tlsMode: 'none',
      auth: 'plain',
      username: 'relay-user',
      password: 'relay-secret-1',
      fromAddress: 'certkeeper@example.com',
      fromName: 'Certkeeper',
      ...overrides,
    });

    it('reads as disabled with nulls until configured', async () => {
      const fresh = await createTestApp();
      try {
        const body = (
          await fresh.http
            .get('/api/v1/settings/mail')
            .set(bearer(await login(fresh)))
            .expect(200)
        ).body as Record<string, unknown>;
        expect(body).toMatchObject({ enabled: false, host: null, port: null, username: null, passwordSet: false, fromAddress: null });
        expect(body).not.toHaveProperty('password');
        await fresh.http
          .post('/api/v1/settings/mail/test')
          .set(bearer(await login(fresh)))
          .send({})
          .expect(422);
      } finally {
        await fresh.close();
      }
    });

    it('keeps the password write-only and encrypted at rest; null keeps it, "" clears it', async () => {
      const saved = (await t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(mailSettings()).expect(200)).body as Record<
        string,
        unknown
      >;
      expect(saved).toMatchObject({ enabled: true, passwordSet: true });
      expect(JSON.stringify(saved)).not.toContain('relay-secret-1');
      const stored = await t.app.get(DataSource).query<{ value: unknown }[]>(`SELECT value FROM settings WHERE key = 'mail'`);
      expect(JSON.stringify(stored)).not.toContain('relay-secret-1');
      expect(JSON.stringify(t.logs)).not.toContain('relay-secret-1');

      await t.http
        .put('/api/v1/settings/mail')
        .set(bearer(admin))
        .send(mailSettings({ password: null }))
        .expect(200);
      await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({ to: 'ops@example.com' }).expect(204);
      await t.http
        .put('/api/v1/settings/mail')
        .set(bearer(admin))
        .send(mailSettings({ password: '' }))
        .expect(200);
      expect((await t.http.get('/api/v1/settings/mail').set(bearer(admin)).expect(200)).body).toMatchObject({ passwordSet: false });
      await t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(mailSettings()).expect(200);
    });

    it('sends a test message (204) to the caller by default, and reports a failed round trip (502)', async () => {
      await t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(mailSettings()).expect(200);
      const before = smtp.messages.length;
      await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(204);
      expect(smtp.messages.slice(before).map((m) => m.to)).toEqual([ADMIN_EMAIL]);

      await t.http
        .put('/api/v1/settings/mail')
        .set(bearer(admin))
        .send(mailSettings({ password: 'wrong-password' }))
        .expect(200);
      const wrongAuth = await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(502);
      expect(sentenceOf(wrongAuth.text)).toBe(
        'The SMTP round trip failed: the relay did not accept the user name and password with reply code 535.',
      );
      expect(wrongAuth.text).not.toContain('wrong-password');

      const closed = await freePort();
      await t.http
        .put('/api/v1/settings/mail')
        .set(bearer(admin))
        .send(mailSettings({ port: closed }))
        .expect(200);
      const unreachable = await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(502);
      expect(sentenceOf(unreachable.text)).toBe('The SMTP round trip failed: the relay refused the connection (ECONNREFUSED).');

      await t.http
        .put('/api/v1/settings/mail')
        .set(bearer(admin))
        .send(mailSettings({ enabled: false }))
        .expect(200);
      await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(422);
    });

    it('speaks STARTTLS to a self-signed relay only when allowed, and implicit TLS', async () => {
      const starttls = await startSmtpServer({ starttls: true });
      const implicit = await startSmtpServer({ secure: true });
      try {
        const settings = (server: TestSmtpServer, tlsMode: string, allow: boolean) =>
          mailSettings({ port: server.port, tlsMode, auth: 'none', username: null, password: '', allowInvalidCertificate: allow });
        await t.http
          .put('/api/v1/settings/mail')
          .set(bearer(admin))
          .send(settings(starttls, 'starttls', false))
          .expect(200);
        const refused = await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(502);
        expect(sentenceOf(refused.text)).toBe(
          "The SMTP round trip failed: the relay's TLS certificate was not accepted (DEPTH_ZERO_SELF_SIGNED_CERT).",
        );
        await t.http
          .put('/api/v1/settings/mail')
          .set(bearer(admin))
          .send(settings(starttls, 'starttls', true))
          .expect(200);
        await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(204);
        expect(starttls.messages).toHaveLength(1);
        await t.http
          .put('/api/v1/settings/mail')
          .set(bearer(admin))
          .send(settings(implicit, 'tls', true))
          .expect(200);
        await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(204);
        expect(implicit.messages).toHaveLength(1);
      } finally {
        await starttls.close();
        await implicit.close();
      }
    });

    it('names how the round trip failed and its reply code in the 502, never the text the relay sent', async () => {
      const failure = async () =>
        sentenceOf((await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(502)).text);
      await t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(mailSettings()).expect(200);
      smtp.rejection = { code: 550, text: 'secret-banner-text' };
      try {
        const rejected = await failure();
        expect(rejected).toBe('The SMTP round trip failed: the relay rejected RCPT TO with reply code 550.');
        expect(rejected).not.toContain('secret-banner-text');
      } finally {
        smtp.rejection = null;
      }

      // A relay that accepts the connection and never greets: the greeting deadline, shortened here.
      const tarpit = await startTarpit();
      const saved = { ...smtpTimeouts };
      Object.assign(smtpTimeouts, { connectionTimeout: 500, greetingTimeout: 500, socketTimeout: 500 });
      try {
        await t.http
          .put('/api/v1/settings/mail')
          .set(bearer(admin))
          .send(mailSettings({ port: tarpit.port }))
          .expect(200);
        expect(await failure()).toBe('The SMTP round trip failed: the relay did not answer in time.');
        expect(tarpit.connections()).toBe(1);
      } finally {
        Object.assign(smtpTimeouts, saved);
        await tarpit.close();
      }

      // Implicit TLS spoken to a relay that talks plain SMTP: the handshake fails on the relay's greeting.
      await t.http
        .put('/api/v1/settings/mail')
        .set(bearer(admin))
        .send(mailSettings({ tlsMode: 'tls' }))
        .expect(200);
      expect(await failure()).toBe('The SMTP round trip failed: the TLS handshake with the relay failed (ERR_SSL_WRONG_VERSION_NUMBER).');
      await t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(mailSettings()).expect(200);
      await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(204);
      expect(JSON.stringify(t.logs)).not.toContain('secret-banner-text');
    });

    it('refuses a relay OUTBOUND_DENY covers (502 saying why) without connecting to it, by address and by name', async () => {
      const deny = parseOutboundDeny('127.0.0.0/8,::1/128');
      if (!deny.ok) throw new Error(deny.problem);
      const guarded = await createTestApp({ outboundDeny: deny.value });
      try {
        const token = await login(guarded);
        const connectionsBefore = smtp.connections;
        const refusal = async (host: string) => {
          await guarded.http.put('/api/v1/settings/mail').set(bearer(token)).send(mailSettings({ host })).expect(200);
          return (await guarded.http.post('/api/v1/settings/mail/test').set(bearer(token)).send({}).expect(502)).text;
        };
        expect(await refusal('127.0.0.1')).toContain('The SMTP round trip failed: refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8');
        expect(await refusal('localhost')).toMatch(/refused by OUTBOUND_DENY: localhost resolves to (127\.0\.0\.1|::1), which is in /);
        expect(smtp.connections).toBe(connectionsBefore);
      } finally {
        await guarded.close();
      }
    });

    it.each([
      [{ enabled: true }, 'host'],
      [{ enabled: true, host: 'smtp', port: 0, fromAddress: 'a@b.c' }, 'port'],
      [{ enabled: true, host: 'smtp', port: 25, fromAddress: 'nope' }, 'fromAddress'],
      [{ enabled: true, host: 'smtp', port: 25, fromAddress: 'a@b.c', tlsMode: 'ssl' }, 'tlsMode'],
      [{ enabled: true, host: 'smtp', port: 25, fromAddress: 'a@b.c', auth: 'login' }, 'username'],
      [{ enabled: 'yes' }, 'enabled'],
    ])('refuses %j with 400', async (body, field) => {
      const response = await t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(body).expect(400);
      expect(response.text).toContain(field);
    });
  });

  describe('notification templates', () => {
    it('lists the built-in defaults with their variables', async () => {
      const templates = (await t.http.get('/api/v1/notification-templates').set(bearer(admin)).expect(200)).body as Record<
        string,
        unknown
      >[];
      // Every event type on e-mail and the chat channels; webhooks carry data, not templates (docs/api-contract.md section 17).
      const eventTypes = [
        'cert_expiring',
        'cert_expired',
        'renewal_overdue',
        'rotation_regression',
        'renewal_not_deployed',
        'cert_revoked',
      ];
      expect(templates.map((x) => [x.eventType, x.channel, x.isCustom])).toEqual(
        eventTypes.flatMap((eventType) => ['email', 'slack', 'teams', 'ntfy', 'pagerduty'].map((channel) => [eventType, channel, false])),
      );
      const variablesOf = (eventType: string) =>
        new Set(templates.filter((x) => x.eventType === eventType).map((x) => JSON.stringify(x.variables)));
      const expiringVariables = ['EndpointName', 'EndpointType', 'CommonName', 'NotAfter', 'DaysRemaining', 'Fingerprint'];
      expect(variablesOf('cert_expiring')).toEqual(new Set([JSON.stringify(expiringVariables)]));
      expect([...variablesOf('cert_expired')].join()).not.toContain('DaysRemaining');
      // docs/api-contract.md sections 15, 16 and 18.
      expect(variablesOf('renewal_overdue')).toEqual(
        new Set([JSON.stringify([...expiringVariables, 'WindowStart', 'WindowEnd', 'ExplanationURL'])]),
      );
      expect(variablesOf('rotation_regression')).toEqual(
        new Set([JSON.stringify([...expiringVariables, 'PreviousFingerprint', 'Regressions'])]),
      );
      expect(variablesOf('renewal_not_deployed')).toEqual(
        new Set([JSON.stringify([...expiringVariables, 'NewFingerprint', 'NewNotBefore'])]),
      );
    });

    it('saves an override, refuses bad ones with 400, 404s unknown keys, and restores the default on delete', async () => {
      const custom = { subject: 'Renew {{ .CommonName }}', body: '<p>{{ .EndpointName }}: {{ .DaysRemaining }} days</p>' };
      const saved = (await t.http.put('/api/v1/notification-templates/cert_expiring/email').set(bearer(admin)).send(custom).expect(200))
        .body as Record<string, unknown>;
      expect(saved).toMatchObject({ ...custom, isCustom: true });
      const unknown = await t.http
        .put('/api/v1/notification-templates/cert_expired/email')
        .set(bearer(admin))
        .send({ subject: 'x', body: '{{ .DaysRemaining }}' })
        .expect(400);
      expect(unknown.text).toContain('DaysRemaining');
      const syntax = await t.http
        .put('/api/v1/notification-templates/cert_expiring/email')
        .set(bearer(admin))
        .send({ subject: 'x', body: 'hello {{ .CommonName' })
        .expect(400);
      expect(syntax.text).toContain('body');
      await t.http.put('/api/v1/notification-templates/cert_expiring/email').set(bearer(admin)).send({ subject: 'x' }).expect(400);
      await t.http.get('/api/v1/notification-templates/cert_renewed/email').set(bearer(admin)).expect(404);
      await t.http.get('/api/v1/notification-templates/cert_expiring/sms').set(bearer(admin)).expect(404);
      await t.http.delete('/api/v1/notification-templates/cert_expiring/email').set(bearer(admin)).expect(204);
      await t.http.delete('/api/v1/notification-templates/cert_expiring/email').set(bearer(admin)).expect(204);
      expect((await t.http.get('/api/v1/notification-templates/cert_expiring/email').set(bearer(admin)).expect(200)).body).toMatchObject({
        isCustom: false,
      });
    });
    it('previews a template with sample values by the alert renderer, refusing what saving refuses', async () => {
      const url = '/api/v1/notification-templates/cert_expiring/email/preview';
      const html = (
        await t.http
          .post(url)
          .set(bearer(admin))
          .send({ subject: 'Renew {{ .CommonName }} in {{ .DaysRemaining }} days', body: '<p>{{ .EndpointName }} & co</p>' })
          .expect(200)
      ).body as Record<string, unknown>;
      expect(html).toEqual({
        subject: 'Renew www.example.com in 14 days',
        html: '<p>www.example.com:443, api.example.com:443 & co</p>',
        text: expect.stringContaining('www.example.com:443, api.example.com:443') as unknown,
        chat: null,
      });
      const text = (await t.http.post(url).set(bearer(admin)).send({ subject: 'x', body: 'Line {{ .NotAfter }}\nnext' }).expect(200))
        .body as Record<string, unknown>;
      expect(text).toEqual({ subject: 'x', html: null, text: 'Line 2030-01-15 12:00 UTC\nnext', chat: null });
      // Nothing was saved.
      expect((await t.http.get('/api/v1/notification-templates/cert_expiring/email').set(bearer(admin)).expect(200)).body).toMatchObject({
        isCustom: false,
      });

      const syntax = await t.http.post(url).set(bearer(admin)).send({ subject: 'x', body: 'hello {{ .CommonName' }).expect(400);
      expect(syntax.headers['content-type']).toMatch(/^text\/plain/);
      expect(syntax.text).toContain('body');
      const unknown = await t.http
        .post('/api/v1/notification-templates/cert_expired/email/preview')
        .set(bearer(admin))
        .send({ subject: 'x', body: '{{ .DaysRemaining }}' })
        .expect(400);
      expect(unknown.text).toContain('DaysRemaining');
      await t.http.post(url).set(bearer(admin)).send({ subject: 'x' }).expect(400);
      await t.http
        .post('/api/v1/notification-templates/cert_renewed/email/preview')
        .set(bearer(admin))
        .send({ subject: 'x', body: 'y' })
        .expect(404);

      // settings:view suffices; a viewer is refused before the body is read (a bad body still answers 403).
      const operator = await createUser(t, 'operator');
      await t.http.post(url).set(bearer(operator.token)).send({ subject: 'x', body: 'y' }).expect(200);
      const viewer = await createUser(t, 'viewer');
      await t.http.post(url).set(bearer(viewer.token)).send({ subject: 'x', body: 'y' }).expect(403);
      await t.http.post(url).set(bearer(viewer.token)).send({ nonsense: true }).expect(403);
      await t.http.post(url).send({ subject: 'x', body: 'y' }).expect(401);
    });
  });

  describe('tag subscriptions', () => {
    it('are read and replaced by the user, de-duplicated and validated', async () => {
      const viewer = await createUser(t, 'viewer');
      expect((await t.http.get('/api/v1/me/tag-subscriptions').set(bearer(viewer.token)).expect(200)).body).toEqual([]);
      expect(
        (await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(viewer.token)).send(['env:prod', 'team:a', 'env:prod']).expect(200))
          .body,
      ).toEqual(['env:prod', 'team:a']);
      expect((await t.http.get('/api/v1/me').set(bearer(viewer.token)).expect(200)).body).toMatchObject({
        tagSubscriptions: ['env:prod', 'team:a'],
      });
      await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(viewer.token)).send({ tags: [] }).expect(400);
      // The sentence PUT /endpoints/{id}/tags uses: one rule, one message.
      const bad = await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(viewer.token)).send(['ok', 'bad\ntag']).expect(400);
      expect(bad.text).toBe('tags[1] must be a string of 1 to 100 printable characters (category:value or value)\n');
      await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(viewer.token)).send([]).expect(200);
    });
  });
});
