import { createHash } from 'node:crypto';
import type { MintedCertificate } from '@certkeeper/domain/testing';
import { bearer, type TestApp } from './test-app';

const sha256 = (certificate: MintedCertificate) => createHash('sha256').update(certificate.der).digest('hex');

/** The CCADB report of roots trusted for websites by every store, as POST /root-stores/import takes it. */
function ccadbCsv(roots: MintedCertificate[]): string {
  const header = ['Certificate Name', 'Apple Status', 'Apple Trust Bits', 'Google Chrome Status', 'Microsoft Status', 'Microsoft EKUs'];
  const rows = roots.map((root) => [root.certificate.subject, 'Included', 'serverAuth', 'Included', 'Included', 'Server Authentication']);
  const full = [
    [...header, 'Mozilla Status', 'Mozilla Trust Bits', 'SHA-256 Fingerprint'],
    ...rows.map((row, i) => [...row, 'Included', 'Websites', sha256(roots[i])]),
  ];
  return full.map((cells) => cells.map((cell) => `"${cell.replace(/"/g, '""')}"`).join(',')).join('\r\n');
}

/** Makes these roots trusted for websites by every store, through the import route. */
export async function importTrustedRoots(t: TestApp, token: string, roots: MintedCertificate[]): Promise<void> {
  await t.http
    .post('/api/v1/root-stores/import')
    .set(bearer(token))
    .attach('matrix', Buffer.from(ccadbCsv(roots)), 'AllIncludedRootCertsCSV.csv')
    .attach('pems', Buffer.from(roots.map((root) => root.pem).join('')), 'roots.pem')
    .expect(200);
}
