import { readFileSync } from 'node:fs';
// Generated from apps/api/openapi.json by @hey-api/openapi-ts next to this file, at test time.
import { client } from './client/client.gen.js';
import {
  createEndpoint,
  getCertificate,
  getDashboard,
  getEndpoint,
  listCertificates,
  login,
  updateMe,
  type UploadEndpointCertificateErrors,
  type UploadEndpointCertificateResponses,
} from './client/index.js';

/*
 * A flow on a client that a second generator, @hey-api/openapi-ts, makes from apps/api/openapi.json:
 * apps/api/test/openapi-hey-api-client.spec.ts generates the client, compiles it with this program
 * in strict mode (tsconfig.json beside this file) and runs it against a real server. A description
 * that lies to strict clients (an enum without the null the server sends, a body of the wrong
 * type, an undeclared status or header) fails to compile here or fails a step.
 *
 * Environment: CERTKEEPER_URL, CERTKEEPER_EMAIL, CERTKEEPER_PASSWORD, and CERTKEEPER_PEM_FILE (a
 * certificate to upload). Prints one line per step; exits 1 at the first step that goes wrong.
 */

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set.`);
  return value;
}

function fail(step: string, status: number, error: unknown): never {
  throw new Error(`${step} failed (${status}): ${typeof error === 'string' ? error : JSON.stringify(error)}`);
}

async function main(): Promise<void> {
  const email = required('CERTKEEPER_EMAIL');
  const password = required('CERTKEEPER_PASSWORD');
  let token = '';
  client.setConfig({ baseUrl: required('CERTKEEPER_URL'), auth: () => token });

  const signIn = await login({ body: { email, password } });
  if (!signIn.data) fail('Sign-in', signIn.response.status, signIn.error);
  token = signIn.data.token;
  console.log(`signed in as ${signIn.data.user.email} (${signIn.data.user.role})`);

  // One endpoint of each type; the host's `starttls: null` is what the server sends back too.
  const host = await createEndpoint({ body: { name: 'hey-host', dnsName: 'hey-host.example.test', port: 8443, starttls: null } });
  const saml = await createEndpoint({ body: { name: 'hey-saml', type: 'saml', metadataUrl: 'https://idp.example.test/metadata' } });
  const manual = await createEndpoint({ body: { name: 'hey-manual', type: 'manual', tags: ['env:prod'] } });
  for (const [name, created] of Object.entries({ host, saml, manual })) {
    if (!created.data) fail(`Creating the ${name} endpoint`, created.response.status, created.error);
  }
  const hostRead = await getEndpoint({ path: { id: host.data!.id } });
  if (!hostRead.data) fail('Reading the host endpoint', hostRead.response.status, hostRead.error);
  const starttls: 'smtp' | 'imap' | 'pop3' | 'ftp' | 'ldap' | 'postgres' | 'xmpp' | null = hostRead.data.starttls;
  console.log(`created host port ${hostRead.data.port} starttls ${String(starttls)}, saml, manual`);

  // Raw PEM: the generated function types the JSON form of the body, so the PEM form goes through
  // the client itself, still typed by the operation's declared answers.
  const manualId = manual.data!.id;
  const uploaded = await client.post<UploadEndpointCertificateResponses, UploadEndpointCertificateErrors>({
    url: '/api/v1/endpoints/{id}/certificate',
    path: { id: manualId },
    query: { certUse: 'manual' },
    body: readFileSync(required('CERTKEEPER_PEM_FILE'), 'utf8'),
    bodySerializer: null,
    headers: { 'Content-Type': 'application/x-pem-file' },
    security: [{ scheme: 'bearer', type: 'http' }],
  });
  if (!uploaded.data) fail('Uploading a PEM', uploaded.response.status, uploaded.error);
  const fingerprint = uploaded.data.certificate.fingerprint;
  console.log(`uploaded (${uploaded.response.status}, link ${uploaded.data.link})`);

  const certificate = await getCertificate({ path: { fingerprint } });
  if (!certificate.data) fail('Reading the certificate back', certificate.response.status, certificate.error);
  const manualRead = await getEndpoint({ path: { id: manualId } });
  const current = manualRead.data?.currentCertificates.map((link) => link.fingerprint) ?? [];
  console.log(`read back ${certificate.data.commonName ?? '(no CN)'}; manual endpoint current: ${String(current.includes(fingerprint))}`);

  const listed = await listCertificates({ query: { limit: 1, offset: 0 } });
  if (!listed.data) fail('Listing certificates', listed.response.status, listed.error);
  console.log(`listed ${listed.data.length} of X-Total-Count ${listed.response.headers.get('X-Total-Count')}`);

  const dashboard = await getDashboard({ query: { limit: 5 } });
  if (!dashboard.data) fail('Reading the dashboard', dashboard.response.status, dashboard.error);
  console.log(`dashboard: ${dashboard.data.counts.endpoints} endpoints`);

  // Wrong current passwords count towards the sign-in limits: the answer turns from 400 to 429.
  const statuses: number[] = [];
  for (;;) {
    const change = await updateMe({ body: { currentPassword: 'not the password', password: 'a-new-password-1' } });
    statuses.push(change.response.status);
    if (change.response.status === 429) {
      const refusal: string | undefined = change.error;
      console.log(
        `429 after ${statuses.length - 1} refusals, Retry-After ${change.response.headers.get('Retry-After') ? 'set' : 'missing'}: ${refusal?.trim()}`,
      );
      break;
    }
    if (change.response.status !== 400 || statuses.length > 20) fail('Changing the password', change.response.status, change.error);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
