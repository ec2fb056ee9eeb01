import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseNotifications } from '../src/database/notifications';
import { FindingsService } from '../src/modules/findings/findings.service';
import { SettingEntity } from '../src/modules/settings/setting.entity';
import { SettingsService } from '../src/modules/settings/settings.service';
import { eventually } from './support/eventually';
import { cutOffListener, databaseUrl } from './support/test-database';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';

/**
 * The settings documents are read from memory until a write could change them (SettingsCache,
 * docs/decisions/0024-database-access.md "Caches"): each case shows a change still taking effect
 * at once, whoever makes it, and that the cache is really used, by the findings recomputation
 * that used to read the alert policy for every batch.
 */
describe('cached settings', () => {
  let t: TestApp;
  let admin: string;
  let other: Client;
  let policyReads: number;

  const listening = () => t.app.get(DatabaseNotifications).listening;
  const policy = () => t.app.get(SettingsService).alertPolicy();

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    other = new Client({ connectionString: databaseUrl(t.databaseName) });
    await other.connect();
    const settings = t.app.get(DataSource).getRepository(SettingEntity);
    const findOneBy = settings.findOneBy.bind(settings);
    jest.spyOn(settings, 'findOneBy').mockImplementation((where) => {
      if ((where as { key?: string }).key === 'alert_policy') policyReads += 1;
      return findOneBy(where);
    });
    await eventually(listening, (value) => value);
  });

  afterAll(async () => {
    await other.end();
    await t.close();
  });

  beforeEach(() => {
    policyReads = 0;
  });

  it('reads the alert policy once for any number of findings recomputations while nothing changes it', async () => {
    for (let name = 0; name < 3; name += 1)
      await t.http
        .post('/api/v1/endpoints')
        .set(bearer(admin))
        .send({ name: `cached-${name}`, type: 'manual' })
        .expect(201);
    t.app.get(DatabaseNotifications).wroteHere();
    policyReads = 0;
    await t.app.get(FindingsService).recomputeAll();
    await t.app.get(FindingsService).recomputeAll();
    expect((await policy()).renewalInfo).toBe(true);
    expect(policyReads).toBe(1);
  });

  it('answers a change made through the API at once, and one made on another connection once its notification arrives', async () => {
    await policy();
    await t.http.put('/api/v1/settings/alert-policy').set(bearer(admin)).send({ supersededAfterHours: 12 }).expect(200);
    expect((await policy()).supersededAfterHours).toBe(12);

    await other.query(`UPDATE settings SET value = jsonb_set(value, '{supersededAfterHours}', '36') WHERE key = 'alert_policy'`);
    expect(
      await eventually(
        async () => (await policy()).supersededAfterHours,
        (hours) => hours === 36,
      ),
    ).toBe(36);
  });

  it('gives each reader its own copy', async () => {
    const first = await policy();
    first.supersededAfterHours = 999;
    expect((await policy()).supersededAfterHours).not.toBe(999);
  });

  it('keeps nothing while it cannot hear notifications, and caches again once it can', async () => {
    await cutOffListener(t.databaseName);
    await eventually(listening, (value) => !value);
    policyReads = 0;
    await policy();
    await policy();
    expect(policyReads).toBe(2);

    await eventually(listening, (value) => value);
    policyReads = 0;
    await policy();
    await policy();
    expect(policyReads).toBe(1);
  });
});
