import { createHash } from 'node:crypto';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import * as pkijs from 'pkijs';
import type { AppConfig } from '../../src/config/app-config';
import { startAcmeServer, type TestAcmeServer } from '@certkeeper/net/testing';
import { DAY } from './fake-clock';
import { mailSettingsFor, startSmtpServer, type TestSmtpServer } from './smtp';
import { bearer, createTestApp, login, manualEndpointWith, type TestApp } from './test-app';

export interface AlertTotals {
  alertsSent: number;
  alreadySent: number;
  failed: number;
}

/**
 * One app, mail through a real SMTP server to the administrator, an ACME issuing CA (its key
 * identifier is what renewal information is asked by) and local ACME servers to configure.
 */
export interface RenewalInfoWorld {
  t: TestApp;
  smtp: TestSmtpServer;
  issuer: MintedCertificate;
  token(): Promise<string>;
  /** Starts a local ACME server, closed with the world. */
  acmeServer(options?: { withoutRenewalInfo?: boolean }): Promise<TestAcmeServer>;
  /** PUT /settings/acme-cas with these CAs, in order. */
  useCas(cas: { name: string; server: TestAcmeServer }[]): Promise<void>;
  /** A certificate of `issuer` (default the world's), current on a new manual endpoint, expiring in `days`. */
  currentCertificate(
    name: string,
    options?: { days?: number; issuer?: MintedCertificate; serialNumber?: string },
  ): Promise<MintedCertificate>;
  refresh(): Promise<{ outcome: string; counts: Record<string, number> }>;
  runAlerts(): Promise<AlertTotals>;
  close(): Promise<void>;
}

export async function renewalInfoWorld(overrides: Partial<AppConfig> = {}): Promise<RenewalInfoWorld> {
  const t = await createTestApp(overrides);
  const smtp = await startSmtpServer();
  const servers: TestAcmeServer[] = [];
  const token = () => login(t);
  const admin = await token();
  const mail = mailSettingsFor(smtp);
  await t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(mail).expect(200);
  const issuer = await issuingCa('Renewal Test CA');
  return {
    t,
    smtp,
    issuer,
    token,
    acmeServer: async (options) => {
      const server = await startAcmeServer(options);
      servers.push(server);
      return server;
    },
    useCas: async (cas) => {
      const body = cas.map(({ name, server }) => ({ name, directoryUrl: server.directoryUrl }));
      await t.http
        .put('/api/v1/settings/acme-cas')
        .set(bearer(await token()))
        .send(body)
        .expect(200);
    },
    currentCertificate: async (name, options = {}) => {
      const notAfter = new Date(Math.floor((t.clock.now().getTime() + (options.days ?? 40) * DAY) / 1000) * 1000);
      const minted = await mintCertificate({
        subject: `CN=${name}`,
        issuer: options.issuer ?? issuer,
        serialNumber: options.serialNumber,
        notBefore: new Date(notAfter.getTime() - 90 * DAY),
        notAfter,
      });
      await manualEndpointWith(t, await token(), name, minted.pem);
      return minted;
    },
    refresh: async () =>
      (
        await t.http
          .post('/api/v1/maintenance/tasks/refresh-renewal-info/run')
          .set(bearer(await token()))
          .expect(200)
      ).body as { outcome: string; counts: Record<string, number> },
    runAlerts: async () =>
      (
        await t.http
          .post('/api/v1/alerts/run')
          .set(bearer(await token()))
          .expect(200)
      ).body as AlertTotals,
    close: async () => {
      await Promise.all(servers.map((server) => server.close()));
      await smtp.close();
      await t.close();
    },
  };
}

export function issuingCa(name: string): Promise<MintedCertificate> {
  return mintCertificate({ subject: `CN=${name}`, ca: true });
}

export const fingerprintOf = (minted: MintedCertificate): string => createHash('sha256').update(minted.der).digest('hex');

/**
 * The certID RFC 9773 asks by, read with pkijs rather than the API's own parser: the Authority
 * Key Identifier's key id and the serial's DER content octets, each base64url.
 */
export function certIdOf(minted: MintedCertificate): string {
  const certificate = pkijs.Certificate.fromBER(minted.der);
  const aki = certificate.extensions?.find((extension) => extension.extnID === '2.5.29.35')?.parsedValue as pkijs.AuthorityKeyIdentifier;
  const keyId = Buffer.from(aki.keyIdentifier!.valueBlock.valueHexView).toString('base64url');
  return `${keyId}.${Buffer.from(certificate.serialNumber.valueBlock.valueHexView).toString('base64url')}`;
}
