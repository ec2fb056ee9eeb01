import { STARTTLS_PROTOCOLS } from '@certkeeper/domain/protocol';
import { DataSource } from 'typeorm';
import { bearer, createTestApp, defaultScannerCredentials, login, type TestApp } from './support/test-app';

// docs/api-contract.md section 13: the `starttls` field of host endpoints through every way an
// endpoint is written and read, and the column that stores it.

interface EndpointBody {
  id: string;
  type: string;
  dnsName: string | null;
  port: number | null;
  starttls: string | null;
}

interface WorkBody {
  items: { endpointId: string; type: string; starttls?: string | null }[];
}

describe('endpoints: starttls', () => {
  let t: TestApp;
  let admin: string;
  let sql: DataSource;
  let scannerToken: string;
  // Every endpoint of this file carries the marker, so list filters count only ours.
  const marker = `stls${Date.now().toString(36)}`;
  const unique = () => `${marker}-${Math.random().toString(36).slice(2, 10)}.example.com`;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    sql = t.app.get(DataSource);
    scannerToken = (await defaultScannerCredentials(t, admin)).token;
  });
  afterAll(() => t.close());

  const post = (body: Record<string, unknown>) => t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body);
  const create = async (body: Record<string, unknown>) => (await post(body).expect(201)).body as EndpointBody;
  const get = async (id: string) => (await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200)).body as EndpointBody;
  const stored = async (id: string) =>
    (await sql.query<{ starttls: string | null }[]>('SELECT starttls FROM endpoints WHERE id = $1', [id]))[0].starttls;

  it('is null by default, in the answer and in the row', async () => {
    const endpoint = await create({ name: 'Implicit', dnsName: unique() });
    expect(endpoint.starttls).toBeNull();
    expect(await stored(endpoint.id)).toBeNull();
  });

  it('takes each of the seven protocols on create and gives it back on read', async () => {
    expect([...STARTTLS_PROTOCOLS].sort()).toEqual(['ftp', 'imap', 'ldap', 'pop3', 'postgres', 'smtp', 'xmpp']);
    for (const protocol of STARTTLS_PROTOCOLS) {
      const endpoint = await create({ name: `Upgrade ${protocol}`, dnsName: unique(), port: 2525, starttls: protocol });
      expect(endpoint.starttls).toBe(protocol);
      expect((await get(endpoint.id)).starttls).toBe(protocol);
      expect(await stored(endpoint.id)).toBe(protocol);
    }
  });

  it('refuses an unknown protocol and another type of value', async () => {
    for (const starttls of ['SMTP', 'smtps', 'https', '', 25, true, ['smtp']]) {
      const response = await post({ name: 'Bad', dnsName: unique(), starttls }).expect(400);
      expect(response.text).toContain('starttls must be null or one of smtp, imap, pop3, ftp, ldap, postgres, xmpp');
    }
  });

  it('ignores a protocol on saml and manual endpoints, which read it back as null, like dnsName', async () => {
    const saml = await create({ name: 'Saml', type: 'saml', metadataUrl: `https://${unique()}/md`, starttls: 'smtp' });
    expect(saml.starttls).toBeNull();
    expect((await get(saml.id)).starttls).toBeNull();
    expect(await stored(saml.id)).toBeNull();
    const manual = await create({ name: 'Manual', type: 'manual', starttls: 'imap', dnsName: unique() });
    expect(manual).toMatchObject({ starttls: null, dnsName: null });
    expect(await stored(manual.id)).toBeNull();
    const samlNull = await create({ name: 'Saml null', type: 'saml', metadataUrl: `https://${unique()}/md`, starttls: null });
    expect(samlNull.starttls).toBeNull();
  });

  it('changes with PATCH, keeps when PATCH leaves it out, resets with a PUT that leaves it out', async () => {
    const endpoint = await create({ name: 'Mail', dnsName: unique(), port: 25, starttls: 'smtp' });
    const path = `/api/v1/endpoints/${endpoint.id}`;

    let body = (await t.http.patch(path).set(bearer(admin)).send({ notes: 'kept' }).expect(200)).body as EndpointBody;
    expect(body.starttls).toBe('smtp');
    body = (await t.http.patch(path).set(bearer(admin)).send({ starttls: 'imap', port: 143 }).expect(200)).body as EndpointBody;
    expect(body).toMatchObject({ starttls: 'imap', port: 143 });
    expect(await stored(endpoint.id)).toBe('imap');
    body = (await t.http.patch(path).set(bearer(admin)).send({ starttls: null }).expect(200)).body as EndpointBody;
    expect(body.starttls).toBeNull();

    body = (await t.http.put(path).set(bearer(admin)).send({ name: 'Mail', dnsName: endpoint.dnsName, starttls: 'pop3' }).expect(200))
      .body as EndpointBody;
    expect(body.starttls).toBe('pop3');
    // PUT replaces the record: what it does not name goes back to its default.
    body = (await t.http.put(path).set(bearer(admin)).send({ name: 'Mail', dnsName: endpoint.dnsName }).expect(200)).body as EndpointBody;
    expect(body.starttls).toBeNull();
    expect(await stored(endpoint.id)).toBeNull();

    const refused = await t.http.patch(path).set(bearer(admin)).send({ starttls: 'telnet' }).expect(400);
    expect(refused.text).toContain('starttls must be null or one of');
    expect((await get(endpoint.id)).starttls).toBeNull();
  });

  it('ignores a protocol in PATCH and PUT of saml and manual endpoints, applying the rest', async () => {
    const metadataUrl = `https://${unique()}/md`;
    const saml = await create({ name: 'Saml', type: 'saml', metadataUrl });
    const path = `/api/v1/endpoints/${saml.id}`;
    let body = (await t.http.patch(path).set(bearer(admin)).send({ starttls: 'ldap', notes: 'patched' }).expect(200)).body as EndpointBody;
    expect(body).toMatchObject({ starttls: null, notes: 'patched' });
    body = (await t.http.put(path).set(bearer(admin)).send({ name: 'Saml put', metadataUrl, starttls: 'xmpp' }).expect(200))
      .body as EndpointBody;
    expect(body).toMatchObject({ starttls: null, name: 'Saml put' });
    expect(await stored(saml.id)).toBeNull();

    const manual = await create({ name: 'Manual', type: 'manual' });
    body = (await t.http.patch(`/api/v1/endpoints/${manual.id}`).set(bearer(admin)).send({ starttls: 'pop3' }).expect(200))
      .body as EndpointBody;
    expect(body.starttls).toBeNull();
    body = (await t.http.put(`/api/v1/endpoints/${manual.id}`).set(bearer(admin)).send({ name: 'Manual', starttls: 'ftp' }).expect(200))
      .body as EndpointBody;
    expect(body.starttls).toBeNull();
    expect(await stored(manual.id)).toBeNull();
  });

  it('goes through the bulk import row by row', async () => {
    const rows = [
      { name: 'Bulk smtp', dnsName: unique(), port: 587, starttls: 'smtp' },
      { name: 'Bulk none', dnsName: unique() },
      { name: 'Bulk bad', dnsName: unique(), starttls: 'gopher' },
      { name: 'Bulk saml', type: 'saml', metadataUrl: `https://${unique()}/md`, starttls: 'ftp' },
      { name: 'Bulk postgres', dnsName: unique(), port: 5432, starttls: 'postgres' },
    ];
    const result = (await t.http.post('/api/v1/endpoints/bulk').set(bearer(admin)).send(rows).expect(200)).body as {
      results: { index: number; ok: boolean; status: number; error?: string; endpoint?: EndpointBody }[];
      created: number;
      failed: number;
    };
    expect(result).toMatchObject({ created: 4, failed: 1 });
    expect(result.results.map((row) => row.status)).toEqual([201, 201, 400, 201, 201]);
    // The saml row's protocol is ignored, as on create.
    expect(result.results.map((row) => row.endpoint?.starttls)).toEqual(['smtp', null, undefined, null, 'postgres']);
    expect(result.results[2].error).toContain('starttls must be null or one of');
    expect(await stored(result.results[3].endpoint!.id)).toBeNull();
    expect(await stored(result.results[4].endpoint!.id)).toBe('postgres');
  });

  it('filters the list by protocol, and by none for implicit TLS hosts', async () => {
    const q = `${marker}-filter`;
    const names = (protocol: string) => `${q}-${protocol}-${Math.random().toString(36).slice(2, 8)}.example.com`;
    await create({ name: 'F smtp 1', dnsName: names('smtp'), starttls: 'smtp' });
    await create({ name: 'F smtp 2', dnsName: names('smtp'), starttls: 'smtp' });
    await create({ name: 'F ldap', dnsName: names('ldap'), starttls: 'ldap' });
    await create({ name: 'F none', dnsName: names('none') });
    await create({ name: 'F saml', type: 'saml', metadataUrl: `https://${names('saml')}/md` });
    const list = async (starttls: string) =>
      (
        (await t.http.get('/api/v1/endpoints').query({ q, starttls }).set(bearer(admin)).expect(200)).body as {
          items: EndpointBody[];
          totalCount: number;
        }
      ).items.map((item) => item.starttls ?? `${item.type}:none`);
    expect(await list('smtp')).toEqual(['smtp', 'smtp']);
    expect(await list('ldap')).toEqual(['ldap']);
    expect(await list('imap')).toEqual([]);
    // none: host endpoints without an upgrade, not the saml endpoint that has none either.
    expect(await list('none')).toEqual(['host:none']);
    for (const starttls of ['SMTP', 'null', 'tls', '']) {
      const refused = await t.http.get('/api/v1/endpoints').query({ starttls }).set(bearer(admin)).expect(400);
      expect(refused.text).toContain('starttls must be none or one of');
    }
    // The CSV export takes the same filter and carries the column.
    const csv = await t.http.get('/api/v1/endpoints').query({ q, starttls: 'smtp', format: 'csv' }).set(bearer(admin)).expect(200);
    const [header, ...lines] = csv.text.trim().split(/\r?\n/);
    const column = header.split(',').indexOf('starttls');
    expect(column).toBeGreaterThanOrEqual(0);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.split(',')[column]).toBe('smtp');
  });

  it('reaches the agent in the work item, null for implicit TLS', async () => {
    const mail = await create({ name: 'Work smtp', dnsName: unique(), port: 25, starttls: 'smtp' });
    const plain = await create({ name: 'Work plain', dnsName: unique() });
    const work = (await t.http.get('/api/v1/scanner/work').set(bearer(scannerToken)).expect(200)).body as WorkBody;
    expect(work.items.find((item) => item.endpointId === mail.id)?.starttls).toBe('smtp');
    expect(work.items.find((item) => item.endpointId === plain.id)?.starttls).toBeNull();
  });

  it('is a column the database itself refuses outside the seven values (migration EndpointStarttls)', async () => {
    const columns = await sql.query<{ data_type: string; is_nullable: string; column_default: string | null }[]>(
      `SELECT data_type, is_nullable, column_default FROM information_schema.columns WHERE table_name = 'endpoints' AND column_name = 'starttls'`,
    );
    expect(columns).toEqual([{ data_type: 'text', is_nullable: 'YES', column_default: null }]);
    const endpoint = await create({ name: 'Check', dnsName: unique() });
    await expect(sql.query(`UPDATE endpoints SET starttls = 'telnet' WHERE id = $1`, [endpoint.id])).rejects.toThrow(
      /endpoints_starttls_check/,
    );
    await sql.query(`UPDATE endpoints SET starttls = 'xmpp' WHERE id = $1`, [endpoint.id]);
    expect((await get(endpoint.id)).starttls).toBe('xmpp');
  });
});
