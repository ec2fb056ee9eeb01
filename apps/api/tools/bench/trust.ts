import { createHash, KeyObject } from 'node:crypto';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { parseCertificates } from '@certkeeper/domain/x509';
import { generateKeyPair, type KeyType, mintCertificate, type MintedCertificate, reissueWithSerials } from '@certkeeper/domain/testing';
import { DataSource } from 'typeorm';
import { CertificatesService } from '../../src/modules/certificates/certificates.service';
import { TrustVerdictsService } from '../../src/modules/trust/trust-verdicts.service';
import { TrustRepository } from '../../src/modules/trust/trust.repository';
import { printFigure, runBenchmark, withInProcessApp } from './in-process';

/**
 * The trust figure (docs/performance.md): re-evaluating 100,000 stored certificates. The leaves hang under three
 * intermediates the way public TLS looks today (RSA-2048, ECDSA P-384 and P-256 issuers, Let's
 * Encrypt's R and E series), with the Mozilla store seeded from Node's roots on top.
 *
 * - cold: no signature was ever verified (every verified pair forgotten): the upper bound, what a
 *   database upgraded from a version without trust verdicts pays once;
 * - re-evaluation: after an anchor change (what every refresh does), with the verified signatures
 *   the previous pass stored; every verdict changes, so every row is written.
 */

const CERTIFICATES = Number(process.env.BENCH_TRUST_CERTIFICATES ?? 100_000);
const RUNS = 3;
const ISSUERS: { keyType: KeyType; share: number; hash: string }[] = [
  { keyType: 'rsa-2048', share: 0.4, hash: 'sha256' },
  { keyType: 'ecdsa-p384', share: 0.4, hash: 'sha384' },
  { keyType: 'ecdsa-p256', share: 0.2, hash: 'sha256' },
];

async function seed(app: NestExpressApplication): Promise<string> {
  const root = await mintCertificate({ subject: 'CN=Bench Root, O=Certkeeper', ca: true, keys: await generateKeyPair('rsa-2048') });
  const stored: MintedCertificate[] = [root];
  const copies: { template: MintedCertificate; ders: Buffer[] }[] = [];
  for (const [index, { keyType, share, hash }] of ISSUERS.entries()) {
    const intermediate = await mintCertificate({
      subject: `CN=Bench Issuing CA ${index + 1}, O=Certkeeper`,
      ca: true,
      pathLength: 0,
      issuer: root,
      keys: await generateKeyPair(keyType),
    });
    const template = await mintCertificate({ sans: [`template-${index}.example.com`], issuer: intermediate });
    stored.push(intermediate, template);
    copies.push({
      template,
      ders: reissueWithSerials(template.der, KeyObject.from(intermediate.keys.privateKey), Math.round(CERTIFICATES * share), hash),
    });
  }
  const certificates = app.get(CertificatesService);
  const trust = app.get(TrustRepository);
  await trust.inTransaction((transaction) =>
    certificates.storeParsed(parseCertificates(stored.map((c) => c.pem).join(''), { maxCertificates: Infinity }).certificates, transaction),
  );

  // The copies go in by SQL, every column but the four that differ taken from their template's row.
  const sql = app.get(DataSource);
  const columns = (
    await sql.query<{ name: string }[]>(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'certificates' ORDER BY ordinal_position`,
    )
  ).map((row) => row.name);
  const varying: Record<string, string> = {
    fingerprint: 'v.fingerprint',
    sha1_fingerprint: 'v.sha1',
    der: `decode(v.der, 'hex')`,
    serial_number: 'v.serial',
  };
  const select = columns.map((column) => varying[column] ?? `t.${column}`).join(', ');
  for (const { template, ders } of copies) {
    const templateFingerprint = sha256(template.der);
    for (let start = 0; start < ders.length; start += 5000) {
      const batch = ders.slice(start, start + 5000);
      await sql.query(
        `INSERT INTO certificates (${columns.join(', ')})
         SELECT ${select} FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS v(fingerprint, sha1, der, serial)
           JOIN certificates t ON t.fingerprint = $5`,
        [
          batch.map((der) => sha256(der)),
          batch.map((der) => createHash('sha1').update(der).digest('hex')),
          batch.map((der) => der.toString('hex')),
          batch.map((_, i) => (start + i).toString(16)),
          templateFingerprint,
        ],
      );
    }
  }
  await sql.query('VACUUM (ANALYZE) certificates');
  return sha256(root.der);
}

const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');

runBenchmark(() =>
  withInProcessApp('trust', { seedRootStores: true }, async (app) => {
    const rootFingerprint = await seed(app);
    const trust = app.get(TrustRepository);
    const verdicts = app.get(TrustVerdictsService);
    const sql = app.get(DataSource);
    const setAnchors = (stores: string[]) =>
      trust.inTransaction(async (transaction) => {
        for (const store of ['apple', 'microsoft', 'chrome'])
          await trust.replaceAnchors(store, stores.includes(store) ? [rootFingerprint] : [], 'bench', new Date(), transaction);
      });
    const [{ total }] = await sql.query<{ total: number }[]>('SELECT count(*)::int AS total FROM certificates');

    const cold: number[] = [];
    const warm: number[] = [];
    let peakHeap = 0;
    let checked = '';
    for (let run = 0; run < RUNS; run += 1) {
      await sql.query(`UPDATE certificates SET verified_issuers = '{}', trusted_by = '{}', is_trust_anchor = false`);
      await setAnchors(['apple', 'microsoft']);
      let started = performance.now();
      await verdicts.reevaluateAll();
      cold.push(performance.now() - started);
      await setAnchors(run % 2 === 0 ? ['apple', 'microsoft', 'chrome'] : ['apple']);
      started = performance.now();
      const pass = await verdicts.reevaluateAll();
      warm.push(performance.now() - started);
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
      const [counts] = await sql.query<{ trusted: number }[]>(
        `SELECT count(*)::int AS trusted FROM certificates WHERE 'apple' = ANY(trusted_by)`,
      );
      checked = `${pass.evaluated} evaluated, ${pass.changed} changed, ${counts.trusted} trusted by apple`;
    }
    process.stdout.write(`\nCertkeeper trust re-evaluation benchmark (${total} stored certificates, 3 issuers: RSA-2048, P-384, P-256)\n`);
    printFigure('cold: nothing verified before (every signature checked)', cold, '<= 60 s');
    printFigure('re-evaluation after an anchor change (every verdict rewritten)', warm, '<= 60 s');
    process.stdout.write(`  last pass: ${checked}; heap at most ${(peakHeap / 1048576).toFixed(0)} MB\n`);
  }),
);
