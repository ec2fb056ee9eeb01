import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { DAY, HOUR } from './fake-clock';
import { bearer, login, type TestApp } from './test-app';

export type DatedCertificate = MintedCertificate & { notBefore: Date; notAfter: Date };

export interface AlertRunTotals {
  alertsSent: number;
  alreadySent: number;
  failed: number;
  failures: { reason: string; replyCode: number | null; count: number }[];
}

export interface AlertFixtures {
  /** A certificate `days` (and an hour) from expiry by the app's clock, its name also its one SAN. */
  expiringIn(days: number, cn: string): Promise<DatedCertificate>;
  /** A manual endpoint with `minted` as its certificate; its id. */
  onEndpoint(name: string, minted: MintedCertificate, tags?: string[]): Promise<string>;
  /** `POST /alerts/run`, its totals. */
  run(): Promise<AlertRunTotals>;
}

/**
 * Certificates placed in the app's time and the alert job run on demand, for the specs of the
 * alert job and its channels. Each call signs in afresh: tests move the clock by days, past the
 * JWT lifetime.
 */
export function alertFixtures(t: TestApp): AlertFixtures {
  return {
    expiringIn: async (days, cn) => {
      const notAfter = new Date(Math.floor((t.clock.now().getTime() + days * DAY + HOUR) / 1000) * 1000);
      const notBefore = new Date(notAfter.getTime() - 400 * DAY);
      return { ...(await mintCertificate({ subject: `CN=${cn}`, notBefore, notAfter, sans: [cn] })), notBefore, notAfter };
    },
    onEndpoint: async (name, minted, tags = []) => {
      const session = await login(t);
      const created = await t.http.post('/api/v1/endpoints').set(bearer(session)).send({ name, type: 'manual', tags }).expect(201);
      const { id } = created.body as { id: string };
      await t.http
        .post(`/api/v1/endpoints/${id}/certificate`)
        .set(bearer(session))
        .set('Content-Type', 'application/x-pem-file')
        .send(minted.pem)
        .expect(201);
      return id;
    },
    run: async () =>
      (
        await t.http
          .post('/api/v1/alerts/run')
          .set(bearer(await login(t)))
          .expect(200)
      ).body as AlertRunTotals,
  };
}
