import { replicaPair } from './support/replica-pair';
import { type RunningService, stopService } from './support/service-process';
import { mailSettingsFor, startSmtpServer, type TestSmtpServer } from './support/smtp';

const ADMIN = { email: 'admin@alert-replicas.test', password: 'replica-password-1' };

interface Totals {
  alertsSent: number;
  alreadySent: number;
  failed: number;
  failures: { reason: string; replyCode: number | null; count: number }[];
}

/**
 * The alert job on two API processes sharing one database, as two replicas behind a load
 * balancer: a run that outlasts the statement timeout, and a replica killed between the SMTP
 * server's acceptance and the delivery record's commit (docs/api-contract.md section 6).
 */
describe('the alert job on two replicas', () => {
  const replicas = replicaPair('alert-replicas', ADMIN);
  const call = replicas.call;
  const servers: TestSmtpServer[] = [];
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  /** Mail through `smtp`; the first administrator (notify on) is the one recipient. */
  async function sendMailTo(smtp: TestSmtpServer): Promise<void> {
    const mail = mailSettingsFor(smtp);
    expect((await call(replicas.b, 'PUT', '/settings/mail', JSON.stringify(mail))).status).toBe(200);
  }

  const runOn = async (replica: RunningService) => {
    const { status, body } = await call(replica, 'POST', '/alerts/run');
    return { status, totals: body as Totals };
  };

  it('a run on one replica that outlasts the statement timeout makes the other wait, then run, not fail', async () => {
    // 24 alerts through a relay that takes 1.4 s to accept each: A's run lasts longer than the 30 s statement timeout.
    const slow = await startSmtpServer({ acceptDelayMs: 1400 });
    servers.push(slow);
    await sendMailTo(slow);
    await replicas.expiringCertificates('slow', 24);

    const started = Date.now();
    const first = runOn(replicas.a);
    while (slow.messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    const second = runOn(replicas.b);
    const [onA, onB] = await Promise.all([first, second]);
    // The scenario held: A's run outlasted the statement timeout, and B waited through it.
    expect(Date.now() - started).toBeGreaterThan(30_000);
    expect(onA).toEqual({ status: 200, totals: { alertsSent: 24, alreadySent: 0, failed: 0, failures: [] } });
    expect(onB).toEqual({ status: 200, totals: { alertsSent: 0, alreadySent: 24, failed: 0, failures: [] } });
    expect(slow.messages).toHaveLength(24);
    expect(new Set(slow.messages.map((message) => message.headers.get('message-id'))).size).toBe(24);
  }, 120_000);

  it('resends, with the same Message-ID, only the one message a killed replica had sent but not recorded', async () => {
    let killed = false;
    const relay = await startSmtpServer({
      // The third message reaches the server; its sender dies before it hears "250".
      onAccepted: async () => {
        if (killed || relay.messages.length !== 3) return;
        killed = true;
        await stopService(replicas.a, 'SIGKILL');
      },
    });
    servers.push(relay);
    await sendMailTo(relay);
    await replicas.expiringCertificates('crash', 6);

    await call(replicas.a, 'POST', '/alerts/run').catch(() => undefined);
    expect(killed).toBe(true);
    expect(relay.messages).toHaveLength(3);
    const interrupted = relay.messages[2].headers.get('message-id');

    const afterCrash = await runOn(replicas.b);
    expect(afterCrash.status).toBe(200);
    // The two recorded before the crash are not sent again; the interrupted one and the three never tried are.
    expect(afterCrash.totals).toEqual({ alertsSent: 4, alreadySent: 24 + 2, failed: 0, failures: [] });
    const ids = relay.messages.map((message) => message.headers.get('message-id'));
    expect(ids).toHaveLength(7);
    expect(new Set(ids).size).toBe(6);
    expect(ids.filter((id) => id === interrupted)).toHaveLength(2);
    expect(await runOn(replicas.b)).toEqual({ status: 200, totals: { alertsSent: 0, alreadySent: 30, failed: 0, failures: [] } });
  }, 120_000);
});
