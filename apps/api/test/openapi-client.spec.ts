import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, createTestApp, login, type TestApp } from './support/test-app';

// The program on the generated client, as built by `npm test` (tools/build.js all).
const EXAMPLE = join(__dirname, '../../../dist/libs/api-client/example/list-host-endpoints.js');

/**
 * libs/api-client/example/list-host-endpoints.ts against a real server. Type-checking proves the program matches
 * the generated client; running it proves the description matches what the server does: paths,
 * query serialisation (a repeated `tag`), bodies, the page envelope.
 */
describe('the generated OpenAPI client', () => {
  let t: TestApp;

  const run = (args: string[], password = ADMIN_PASSWORD) =>
    promisify(execFile)(process.execPath, [EXAMPLE, ...args], {
      env: { PATH: process.env.PATH, CERTKEEPER_URL: t.baseUrl, CERTKEEPER_EMAIL: ADMIN_EMAIL, CERTKEEPER_PASSWORD: password },
      timeout: 20_000,
    });
  const endpointListRequests = () => t.logs.filter((line) => line.method === 'GET' && line.path === '/api/v1/endpoints').length;

  beforeAll(async () => {
    if (!existsSync(EXAMPLE)) throw new Error(`${EXAMPLE} is missing: \`npm test\` builds it first (npm run build).`);
    t = await createTestApp();
    const admin = await login(t);
    const endpoints = [
      { name: 'web-3', dnsName: 'web-3.example.test', tags: ['env:prod'] },
      { name: 'web-1', dnsName: 'web-1.example.test', tags: ['env:prod', 'team:web'] },
      { name: 'web-2', dnsName: 'web-2.example.test', port: 8443, tags: ['team:web', 'env:prod'] },
      { name: 'staging', dnsName: 'staging.example.test', tags: ['env:staging'] },
      { name: 'idp', type: 'saml', metadataUrl: 'https://idp.example.test/metadata', tags: ['env:prod'] },
      { name: 'vault', type: 'manual', tags: ['env:prod'] },
    ];
    for (const endpoint of endpoints) await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(endpoint).expect(201);
  });
  afterAll(() => t.close());

  it('signs in and lists the host endpoints of a tag, page by page', async () => {
    const before = endpointListRequests();
    const { stdout } = await run(['--tag', 'env:prod', '--page-size', '2']);
    expect(stdout.split('\n')).toEqual([
      `Signed in as ${ADMIN_EMAIL} (admin); 3 host endpoints.`,
      'web-1\tweb-1.example.test:443\tok',
      'web-2\tweb-2.example.test:8443\tok',
      'web-3\tweb-3.example.test:443\tok',
      '',
    ]);
    expect(endpointListRequests() - before).toBe(2);
  });

  it('sends the text filter and several tags', async () => {
    expect((await run(['WEB-2'])).stdout).toContain('1 host endpoints.\nweb-2\t');
    const { stdout } = await run(['--tag', 'env:staging', '--tag', 'team:web']);
    expect(
      stdout
        .split('\n')
        .slice(1, -1)
        .map((row) => row.split('\t')[0]),
    ).toEqual(['staging', 'web-1', 'web-2']);
  });

  it("reports the server's plain-text refusal when sign-in fails", async () => {
    await expect(run([], 'wrong password')).rejects.toMatchObject({
      code: 1,
      stderr: 'Sign-in failed (401): Invalid e-mail or password.\n',
    });
  });
});
