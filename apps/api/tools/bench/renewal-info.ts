import type { NestExpressApplication } from '@nestjs/platform-express';
import { recordFigure, startAcmeServer, windowBody } from '@certkeeper/net/testing';
import type { ActorContext } from '../../src/modules/audit/audit.service';
import { AlertsService } from '../../src/modules/alerts/alerts.service';
import { LifetimesRepository } from '../../src/modules/certificates/lifetimes.repository';
import { MaintenanceService } from '../../src/modules/maintenance/maintenance.service';
import { SettingsService } from '../../src/modules/settings/settings.service';
import { seedAlertFleet } from './alerts-seed';
import { printFigure, runBenchmark, withInProcessApp } from './in-process';
import { seedManualFleet } from './manual-fleet';

/**
 * docs/api-contract.md section 15's figures. The refresh-renewal-info task over current
 * certificates from many issuers against a local ACME server (renewal information with a 6-hour
 * Retry-After): requests per certificate within one Retry-After window, and a run with nothing
 * due. Then the alert job's decision time with lifetime-aware thresholds on against off, over
 * bench:alerts' fleet, and the thresholds screen's read of the lifetimes in use. `--small` runs a
 * fiftieth of it (2,000 certificates, 50 users × 5,000 certificates), for a quick check on a busy
 * machine.
 */

const SMALL = process.argv.includes('--small');
const CERTIFICATES = SMALL ? 2_000 : 100_000;
const ISSUERS = SMALL ? 20 : 1_000;
const ALERT_FLEET = SMALL
  ? { users: 50, certificates: 5_000, insideLargest: 500 }
  : { users: 500, certificates: 50_000, insideLargest: 5_000 };
const RUNS = 3;
const BENCH_ACTOR: ActorContext = { actor: 'bench', actorId: null, requestId: null };

/** Current certificates spread evenly over `ISSUERS` authority key ids, each on its own manual endpoint. */
function seedRenewalFleet(url: string): Promise<void> {
  return seedManualFleet(url, {
    count: CERTIFICATES,
    certificatesSql: `INSERT INTO certificates (fingerprint, sha1_fingerprint, der, serial_number, subject, issuer, common_name, sans, search_text, not_before, not_after,
              key_algorithm, signature_algorithm, is_ca, self_signed, authority_key_id)
       SELECT encode(sha256(i::text::bytea), 'hex'), encode(sha256(('s' || i)::bytea), 'hex'), sha256(i::text::bytea), to_hex(i), format('CN=c%s', i),
              format('CN=Issuer %s', i % $2), format('c%s.example.com', i), '{}', '', now() - interval '30 days', now() + interval '60 days',
              'ECDSA', 'ecdsa-with-SHA256', false, false, encode(sha256(('issuer ' || i % $2)::bytea), 'hex')
         FROM generate_series(1, $1) AS i`,
    params: [ISSUERS],
  });
}

async function renewalInfo(app: NestExpressApplication, databaseUrl: string): Promise<void> {
  await seedRenewalFleet(databaseUrl);
  const ca = await startAcmeServer();
  try {
    ca.reply = () => ({
      body: windowBody(new Date(Date.now() + 20 * 86_400_000), new Date(Date.now() + 22 * 86_400_000)),
      retryAfter: '21600',
    });
    await app.get(SettingsService).replaceAcmeCas([{ name: 'Bench CA', directoryUrl: ca.directoryUrl }], BENCH_ACTOR);
    const maintenance = app.get(MaintenanceService);
    const run = async () => {
      const started = performance.now();
      const result = await maintenance.runTask('refresh-renewal-info', BENCH_ACTOR);
      if (result.outcome !== 'succeeded') throw new Error(`refresh-renewal-info ${result.outcome}`);
      return performance.now() - started;
    };
    const first = await run();
    const nothingDue: number[] = [];
    for (let n = 0; n < RUNS; n += 1) nothingDue.push(await run());
    // The most any one certificate was asked, not the mean: one asked twice and another never would average 1.
    const askedPerCertId = new Map<string, number>();
    for (const request of ca.requests) askedPerCertId.set(request.certId, (askedPerCertId.get(request.certId) ?? 0) + 1);
    const perCertificate = [...askedPerCertId.values()].reduce((most, asked) => Math.max(most, asked), 0);
    if (askedPerCertId.size !== CERTIFICATES) throw new Error(`${askedPerCertId.size} of ${CERTIFICATES} certificates asked`);
    process.stdout.write(`\nCertkeeper renewal information benchmark (${CERTIFICATES} current certificates from ${ISSUERS} issuers)\n`);
    printFigure('refresh-renewal-info, every certificate due', [first], '');
    printFigure('refresh-renewal-info, nothing due', nothingDue, '<= 5 s');
    process.stdout.write(
      `  ${'requests per certificate per Retry-After window, most'.padEnd(60)} ${perCertificate}   target <= 1` +
        ` (${ca.requests.length} requests, every certificate asked)\n`,
    );
    const sortedNothingDue = [...nothingDue].sort((a, b) => a - b)[1];
    recordFigure({
      row: `refresh-renewal-info with nothing due, ${CERTIFICATES} certificates`,
      measured: `${(sortedNothingDue / 1000).toFixed(2)} s`,
      target: '<= 5 s',
      met: sortedNothingDue <= 5000,
    });
    recordFigure({
      row: `Renewal-information requests per certificate per Retry-After window, ${CERTIFICATES} certificates`,
      measured: String(perCertificate),
      target: '<= 1',
      met: perCertificate <= 1,
    });
    await lifetimesInUse(app);
  } finally {
    await ca.close();
  }
}

/** The thresholds screen's read of the lifetimes in use (GET /certificates/lifetimes, scope=all) over the same certificates; no target. */
async function lifetimesInUse(app: NestExpressApplication): Promise<void> {
  const lifetimes = app.get(LifetimesRepository);
  const times: number[] = [];
  for (let n = 0; n < RUNS; n += 1) {
    const started = performance.now();
    await lifetimes.countByLifetime(new Date(), []);
    times.push(performance.now() - started);
  }
  printFigure('lifetimes in use (the thresholds screen), every certificate', times, '', 'ms');
}

async function lifetimeAwareAlerts(app: NestExpressApplication, databaseUrl: string): Promise<void> {
  await seedAlertFleet(databaseUrl, ALERT_FLEET);
  const alerts = app.get(AlertsService);
  const settings = app.get(SettingsService);
  const decide = async (lifetimeAware: boolean) => {
    await settings.replaceAlertPolicy({ lifetimeAware }, BENCH_ACTOR);
    const started = performance.now();
    await alerts.countDueAlerts();
    return performance.now() - started;
  };
  // A first decision warms the process and the database's cache, then off and on take turns, so
  // that neither carries the warm-up or a stretch of load from the machine's other work alone.
  await decide(false);
  const off: number[] = [];
  const on: number[] = [];
  for (let n = 0; n < RUNS; n += 1) {
    off.push(await decide(false));
    on.push(await decide(true));
  }
  const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
  const ratio = median(on) / median(off);
  process.stdout.write(
    `\nCertkeeper alert job with lifetime-aware thresholds (${ALERT_FLEET.users} users, ${ALERT_FLEET.certificates} active certificates)\n`,
  );
  printFigure('decision time, lifetimeAware off', off, '');
  printFigure('decision time, lifetimeAware on', on, 'within 10 % of off');
  process.stdout.write(`  ${'on / off'.padEnd(60)} ${ratio.toFixed(2)}   target <= 1.10\n`);
  recordFigure({
    row: `Alert job decision time, lifetimeAware on / off, ${ALERT_FLEET.users} users × ${ALERT_FLEET.certificates} certificates`,
    measured: ratio.toFixed(2),
    target: '<= 1.10',
    met: ratio <= 1.1,
  });
}

runBenchmark(async () => {
  await withInProcessApp('renewal-info', {}, renewalInfo);
  await withInProcessApp('renewal-info-alerts', {}, lifetimeAwareAlerts);
});
