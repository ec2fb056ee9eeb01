import type { NestExpressApplication } from '@nestjs/platform-express';
import { AlertsService } from '../../src/modules/alerts/alerts.service';
import { seedAlertFleet } from './alerts-seed';
import { printFigure, runBenchmark, withInProcessApp } from './in-process';

/**
 * The alert figure (docs/performance.md): the job's decision time (everything but SMTP) for 500 users with mixed
 * subscriptions over 50,000 active certificates, 5,000 of them inside the largest threshold.
 * Runs the application in this process against a seeded embedded PostgreSQL.
 */

const USERS = 500;
const CERTIFICATES = 50_000;
const INSIDE_LARGEST = 5_000;
const RUNS = 3;

async function bench(app: NestExpressApplication, databaseUrl: string): Promise<void> {
  await seedAlertFleet(databaseUrl, { users: USERS, certificates: CERTIFICATES, insideLargest: INSIDE_LARGEST });
  const alerts = app.get(AlertsService);
  const times: number[] = [];
  let pending = 0;
  let alreadySent = 0;
  let peakHeap = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const decision = await alerts.countDueAlerts();
    times.push(performance.now() - started);
    ({ pending, alreadySent } = decision);
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }
  process.stdout.write(
    `\nCertkeeper alert job benchmark (${USERS} users, ${CERTIFICATES} active certificates, ${INSIDE_LARGEST} inside the largest threshold)\n`,
  );
  printFigure('decision time, first run (nothing delivered yet)', times, '<= 20 s');
  process.stdout.write(
    `  ${'alerts decided'.padEnd(60)} ${pending} to send, ${alreadySent} already sent; heap after each run at most ${(peakHeap / 1048576).toFixed(0)} MB\n`,
  );
}

runBenchmark(() => withInProcessApp('alerts', {}, bench));
