import { startSmtpServer, type TestSmtpServer } from './support/smtp';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';

/**
 * The stored SMTP password goes only to the server it was entered for: whoever may edit the mail
 * settings without knowing it cannot point them at a server of their own and send a test message.
 */
describe('the stored SMTP password', () => {
  let t: TestApp;
  let admin: string;
  let relay: TestSmtpServer;
  let rogue: TestSmtpServer;
  const rogueLogins: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    relay = await startSmtpServer({ auth: { user: 'relay-user', pass: 'relay-secret-1' } });
    // A server that records every password offered to it.
    rogue = await startSmtpServer({ auth: { user: 'relay-user', pass: 'anything' }, onAuthAttempt: (pass) => rogueLogins.push(pass) });
  });
  afterAll(async () => {
    await relay.close();
    await rogue.close();
    await t.close();
  });

  const settings = (overrides: Record<string, unknown> = {}) => ({
    enabled: true,
    host: '127.0.0.1',
    port: relay.port,
    tlsMode: 'none',
    auth: 'plain',
    username: 'relay-user',
    fromAddress: 'certkeeper@example.com',
    ...overrides,
  });
  const save = (body: Record<string, unknown>) => t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(body);
  const stored = async () => (await t.http.get('/api/v1/settings/mail').set(bearer(admin)).expect(200)).body as Record<string, unknown>;

  beforeEach(async () => {
    await save(settings({ password: 'relay-secret-1' })).expect(200);
  });

  it.each([
    ['host', { host: 'localhost' }],
    ['port', { port: 2525 }],
    ['tlsMode', { tlsMode: 'tls' }],
    ['username', { username: 'someone-else' }],
    ['allowInvalidCertificate', { allowInvalidCertificate: true }],
  ])('refuses a change of %s without the password (400), changing nothing', async (field, change) => {
    const before = await stored();
    const response = await save(settings(change)).expect(400);
    expect(response.text).toContain(field);
    expect(response.text).toContain('password');
    expect(await stored()).toEqual(before);
  });

  it('never sends the stored password to a server it was not entered for', async () => {
    await save(settings({ port: rogue.port })).expect(400);
    await save(settings({ port: rogue.port, password: null })).expect(400);
    await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(204);
    expect(relay.messages).toHaveLength(1);
    expect(rogueLogins).toEqual([]);
  });

  it('takes the change with the password again, or with the password cleared', async () => {
    await save(settings({ port: rogue.port, password: 'anything' })).expect(200);
    expect(await stored()).toMatchObject({ port: rogue.port, passwordSet: true });
    await save(settings({ port: relay.port, password: '' })).expect(200);
    expect(await stored()).toMatchObject({ port: relay.port, passwordSet: false });
  });

  it('keeps the password through changes that do not move it', async () => {
    await save(settings({ fromName: 'Certificates', fromAddress: 'pki@example.com', auth: 'login' })).expect(200);
    expect(await stored()).toMatchObject({ passwordSet: true, fromName: 'Certificates', auth: 'login' });
    await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(204);
  });
});
