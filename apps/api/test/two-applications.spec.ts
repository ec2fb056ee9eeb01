import passport from 'passport';
import { APPLICATION_ID } from '../src/config/app-config';
import { strategyNames } from '../src/modules/auth/token-strategies';
import { bearer, createScanner, createTestApp, login, type TestApp } from './support/test-app';

async function createApiKey(app: TestApp, jwt: string): Promise<string> {
  return ((await app.http.post('/api/v1/me/api-keys').set(bearer(jwt)).send({ name: 'isolation' }).expect(201)).body as { key: string })
    .key;
}

/**
 * Passport keeps strategies in one process-wide registry. Two applications in one process (as in
 * this test, in tools, or in a test of two replicas) must each answer only their own tokens, and
 * closing one must leave the other working (docs/decisions/0001-per-application-passport.md).
 */
describe('two applications in one process', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp();
  });
  afterAll(async () => {
    await a.close();
    await b?.close();
  });

  const registered = (app: TestApp) => {
    const names = strategyNames(app.app.get<string>(APPLICATION_ID));
    return Object.values(names).map((name) => (passport as unknown as { _strategy(name: string): unknown })._strategy(name) !== undefined);
  };

  it("each accepts its own JWTs, API keys and scanner tokens and refuses the other's", async () => {
    const tokens = async (app: TestApp) => {
      const jwt = await login(app);
      return { jwt, apiKey: await createApiKey(app, jwt), scanner: (await createScanner(app)).token };
    };
    const ofA = await tokens(a);
    const ofB = await tokens(b);

    for (const [app, own, other] of [
      [a, ofA, ofB],
      [b, ofB, ofA],
    ] as const) {
      await app.http.get('/api/v1/me').set(bearer(own.jwt)).expect(200);
      await app.http.get('/api/v1/me').set(bearer(own.apiKey)).expect(200);
      await app.http.get('/api/v1/scanner/config').set(bearer(own.scanner)).expect(200);
      await app.http.get('/api/v1/me').set(bearer(other.jwt)).expect(401);
      await app.http.get('/api/v1/me').set(bearer(other.apiKey)).expect(401);
      await app.http.get('/api/v1/scanner/config').set(bearer(other.scanner)).expect(401);
    }
  });

  it('removes only its own strategies when one closes, and the other keeps working', async () => {
    expect(registered(a)).toEqual([true, true, true]);
    expect(registered(b)).toEqual([true, true, true]);
    await b.close();
    expect(registered(b)).toEqual([false, false, false]);
    expect(registered(a)).toEqual([true, true, true]);
    await a.http
      .get('/api/v1/me')
      .set(bearer(await login(a)))
      .expect(200);
  });
});
