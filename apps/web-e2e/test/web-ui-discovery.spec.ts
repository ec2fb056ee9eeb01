import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import type { Page } from 'playwright-core';
import { bearer, createScanner, createUser, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, SCREENSHOTS, seriousViolations, signIn } from './support/web-browser';

/*
 * The Discovery screens in headless Chromium against the real API: an operator creates a network
 * (the API's sentence next to a bad range), sweeps it and watches the progress that the scanner
 * reports through the scanner routes exactly as an agent does (the built agent runs sweeps only as
 * a daemon, never with --once), then works the inbox: promote, dismiss, bulk dismiss. A viewer
 * gets no discovery at all.
 */
interface Entry {
  id: string;
  address: string;
  port: number;
  status: string;
  endpointId: string | null;
}
interface Network {
  id: string;
  name: string;
  ranges: string[];
  ports: number[];
  scannerId: string | null;
  scanCronExpression: string;
  enabled: boolean;
}

describeWithChromium('the Discovery screens in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  beforeEach(() => {
    ({ app: t, page } = session);
  });

  const openDiscovery = async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Discovery' }).click();
    await page.getByRole('heading', { name: 'Networks', level: 1 }).waitFor();
  };
  const networks = async (admin: string) =>
    (await t.http.get('/api/v1/discovery/networks').set(bearer(admin)).expect(200)).body as Network[];
  const inbox = async (admin: string, networkId: string) =>
    ((await t.http.get('/api/v1/discovery/inbox').query({ networkId }).set(bearer(admin)).expect(200)).body as { items: Entry[] }).items;
  const finding = (address: string, port: number, leaf: MintedCertificate) => ({
    address,
    port,
    reverseName: null,
    chain: [leaf.pem],
    tlsVersion: 'TLSv1.3',
    cipherSuite: 'TLS_AES_128_GCM_SHA256',
  });
  /** One report of the sweep, posted with the scanner's token as the agent posts it. */
  const report = async (token: string, sweepId: string, fields: { addressesProbed: number; findings: unknown[]; final: boolean }) => {
    const answer = (
      await t.http
        .post('/api/v1/scanner/sweep-reports')
        .set(bearer(token))
        .send({ reports: [{ reportId: randomUUID(), sweepId, error: null, ...fields }] })
        .expect(200)
    ).body as { reports: { status: string }[] };
    expect(answer.reports.map((outcome) => outcome.status)).toEqual(['accepted']);
  };

  it('lets an operator create a network, sweep it with live progress, and promote and dismiss what it found', async () => {
    const admin = await login(t);
    const scanner = await createScanner(t, 'edge-sweeper');
    const operator = await createUser(t, 'operator');
    const [a, b, c, d] = await Promise.all(
      ['a', 'b', 'c', 'd'].map((name) => mintCertificate({ subject: `CN=${name}.lab.test`, sans: [`${name}.lab.test`] })),
    );

    await page.goto('/login');
    await signIn(page, operator.email, operator.password);
    await openDiscovery();
    await page.getByText('No network yet.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // A bad CIDR block: the API's sentence next to the ranges, nothing created.
    const form = page.getByRole('form', { name: 'New network' });
    await form.getByLabel('Name', { exact: true }).fill('lab');
    await form.getByLabel(/^Ranges/).fill('10.20.0.0/33');
    await form.getByLabel(/^Ports/).fill('443, 8443');
    await form.getByLabel('Scanner', { exact: true }).selectOption({ label: 'edge-sweeper' });
    await form.getByRole('button', { name: 'Create network' }).click();
    const rangesError = page.locator('#new-network-ranges-error');
    await rangesError.waitFor();
    expect(await rangesError.textContent()).toMatch(/^ranges\[0\] .*10\.20\.0\.0\/33/);
    expect(await form.getByLabel(/^Ranges/).getAttribute('aria-describedby')).toBe('new-network-ranges-error');
    expect((await networks(admin)).map((network) => network.name)).not.toContain('lab');
    expect(await seriousViolations(page)).toEqual([]);

    // Fixed: created on the chosen scanner, and listed.
    await form.getByLabel(/^Ranges/).fill('10.20.0.0/30');
    await form.getByRole('button', { name: 'Create network' }).click();
    await page.getByRole('link', { name: 'lab', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'edge-sweeper', exact: true }).waitFor();
    const network = (await networks(admin)).find((candidate) => candidate.name === 'lab')!;
    expect(network).toEqual(
      expect.objectContaining({
        name: 'lab',
        ranges: ['10.20.0.0/30'],
        ports: [443, 8443],
        scannerId: scanner.id,
        scanCronExpression: '0 2 * * *',
      }),
    );
    expect(await rangesError.count()).toBe(0);

    // Sweep now: queued until the scanner's agent takes it.
    await page.getByRole('link', { name: 'lab', exact: true }).click();
    await page.getByRole('heading', { name: 'lab', level: 1 }).waitFor();
    await page.getByText('Not swept yet.').waitFor();
    const sweepReads: string[] = [];
    page.on('request', (request) => {
      if (/\/api\/v1\/discovery\/sweeps\//.test(request.url())) sweepReads.push(request.url());
    });
    await page.getByRole('button', { name: 'Sweep now' }).click();
    const progress = page.getByRole('region', { name: 'Sweep progress' });
    await progress.getByText('Queued: waiting for the scanner', { exact: false }).waitFor();
    const [sweep] = (await t.http.get(`/api/v1/discovery/networks/${network.id}/sweeps`).set(bearer(admin)).expect(200)).body as {
      id: string;
      status: string;
    }[];
    expect(sweep.status).toBe('queued');
    expect(await page.getByRole('button', { name: 'Sweep now' }).isDisabled()).toBe(true);

    // The agent claims it and reports in batches: the screen follows without a reload.
    await t.http.post(`/api/v1/scanner/sweeps/${sweep.id}/start`).set(bearer(scanner.token)).expect(200);
    await progress.getByText('Running: 0 of 4 addresses probed, 0 services found.').waitFor();
    await report(scanner.token, sweep.id, { addressesProbed: 2, findings: [finding('10.20.0.1', 443, a)], final: false });
    await progress.getByText('Running: 2 of 4 addresses probed, 1 service found.').waitFor();
    const bar = progress.getByRole('progressbar', { name: 'Addresses probed' });
    expect(await bar.getAttribute('value')).toBe('2');
    expect(await bar.getAttribute('max')).toBe('4');
    expect(await seriousViolations(page)).toEqual([]);
    await report(scanner.token, sweep.id, {
      addressesProbed: 4,
      findings: [finding('10.20.0.2', 8443, b), finding('10.20.0.3', 443, c), finding('10.20.0.2', 443, d)],
      final: true,
    });
    await progress.getByText('Completed: 4 of 4 addresses probed, 4 services found.').waitFor();
    expect(await bar.getAttribute('value')).toBe('4');
    await page.screenshot({ path: join(SCREENSHOTS, 'discovery-sweep-completed.png'), fullPage: true });
    const sweepRow = page.getByRole('region', { name: 'Sweeps' }).getByRole('row').nth(1);
    await sweepRow.getByRole('cell', { name: 'completed', exact: true }).waitFor();
    await sweepRow.getByRole('cell', { name: '4 of 4', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Sweep now' }).isEnabled()).toBe(true);
    // Ended: the screen stops reading the sweep.
    const readsAtEnd = sweepReads.length;
    await page.waitForTimeout(2500);
    expect(sweepReads.length).toBe(readsAtEnd);
    expect(await seriousViolations(page)).toEqual([]);

    // The inbox, filtered to this network, holds the four services.
    await page.getByRole('link', { name: "What this network's sweeps found" }).click();
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    await page.getByText('Entries 1–4 of 4').waitFor();
    expect(page.url()).toContain(`networkId=${network.id}`);
    expect(await page.getByLabel('Network', { exact: true }).inputValue()).toBe(network.id);
    for (const service of ['10.20.0.1:443', '10.20.0.2:8443', '10.20.0.3:443', '10.20.0.2:443'])
      await page.getByRole('cell', { name: service, exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Promote one, with a name and a tag: the API has the endpoint, the screen links to it.
    await page.getByRole('button', { name: 'Promote 10.20.0.1:443' }).click();
    const promote = page.getByRole('form', { name: 'Promote 10.20.0.1:443 to an endpoint' });
    expect(await promote.getByLabel(/^DNS name/).getAttribute('placeholder')).toBe('a.lab.test');
    await promote.getByLabel('Endpoint name').fill('lab-a');
    await promote.getByLabel(/^Tags/).fill('env:lab');
    expect(await seriousViolations(page)).toEqual([]);
    await promote.getByRole('button', { name: 'Promote to endpoint' }).click();
    await page.getByText('Promoted 10.20.0.1:443 to the endpoint').waitFor();
    const entries = await inbox(admin, network.id);
    const promoted = entries.find((entry) => entry.address === '10.20.0.1')!;
    expect(promoted.status).toBe('promoted');
    const endpoint = (await t.http.get(`/api/v1/endpoints/${promoted.endpointId}`).set(bearer(admin)).expect(200)).body as {
      name: string;
      dnsName: string;
      ipAddress: string;
      port: number;
      tags: string[];
    };
    expect(endpoint).toEqual(
      expect.objectContaining({ name: 'lab-a', dnsName: 'a.lab.test', ipAddress: '10.20.0.1', port: 443, tags: ['env:lab'] }),
    );
    expect(await page.getByRole('link', { name: 'lab-a', exact: true }).getAttribute('href')).toBe(`/endpoints/${promoted.endpointId}`);
    await page.getByRole('cell', { name: '10.20.0.1:443', exact: true }).waitFor({ state: 'detached' });

    // Dismiss one: gone from the new entries, dismissed in the API.
    await page.getByRole('button', { name: 'Dismiss 10.20.0.2:8443' }).click();
    await page.getByRole('cell', { name: '10.20.0.2:8443', exact: true }).waitFor({ state: 'detached' });
    await page.getByText('Entries 1–2 of 2').waitFor();
    expect((await inbox(admin, network.id)).find((entry) => entry.port === 8443)!.status).toBe('dismissed');

    // Bulk: select the last two and dismiss them together.
    await page.getByRole('checkbox', { name: 'Select 10.20.0.3:443' }).check();
    await page.getByRole('checkbox', { name: 'Select 10.20.0.2:443' }).check();
    await page.getByText('2 selected').waitFor();
    await page.getByRole('button', { name: 'Dismiss selected' }).click();
    await page.getByText('2 dismissed.').waitFor();
    await page.getByText('No entry matches.').waitFor();
    const after = await inbox(admin, network.id);
    expect(after.map((entry) => `${entry.address}:${entry.port} ${entry.status}`).sort()).toEqual(
      ['10.20.0.1:443 promoted', '10.20.0.2:443 dismissed', '10.20.0.2:8443 dismissed', '10.20.0.3:443 dismissed'].sort(),
    );

    // Every status: the four again, each with what happened to it.
    await page.getByLabel('Status', { exact: true }).selectOption('all');
    await page.getByText('Entries 1–4 of 4').waitFor();
    expect(page.url()).toContain('status=all');
    const promotedRow = page.getByRole('row').filter({ has: page.getByRole('cell', { name: '10.20.0.1:443', exact: true }) });
    await promotedRow.getByRole('cell', { name: 'promoted (endpoint)' }).waitFor();
    expect(await promotedRow.getByRole('button', { name: /^Promote|^Dismiss/ }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    // Bulk promote of a promoted and a dismissed entry: one endpoint, and the API's sentence for the other.
    await page.getByRole('checkbox', { name: 'Select 10.20.0.1:443' }).check();
    await page.getByRole('checkbox', { name: 'Select 10.20.0.3:443' }).check();
    await page.getByRole('button', { name: 'Promote selected' }).click();
    await page.getByText('1 promoted, 1 refused:').waitFor();
    await page.getByText(`10.20.0.1:443: this entry was already promoted to endpoint ${promoted.endpointId}`).waitFor();
    const third = (await inbox(admin, network.id)).find((entry) => entry.address === '10.20.0.3')!;
    expect(third.status).toBe('promoted');
    const thirdEndpoint = (await t.http.get(`/api/v1/endpoints/${third.endpointId}`).set(bearer(admin)).expect(200)).body as {
      dnsName: string;
      ipAddress: string;
    };
    expect(thirdEndpoint).toEqual(expect.objectContaining({ dnsName: 'c.lab.test', ipAddress: '10.20.0.3' }));
    expect(await page.getByText('0 selected').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
  }, 120_000);

  it('lets an operator edit a network (a bad port named before sending) and delete it', async () => {
    const admin = await login(t);
    const operator = await createUser(t, 'operator');
    const office = (
      await t.http
        .post('/api/v1/discovery/networks')
        .set(bearer(admin))
        .send({ name: 'office', ranges: ['192.0.2.0/28'] })
        .expect(201)
    ).body as Network;

    await page.goto('/login');
    await signIn(page, operator.email, operator.password);
    await openDiscovery();
    await page.getByRole('button', { name: 'Edit office' }).click();
    const edit = page.getByRole('form', { name: 'Edit office' });
    await edit.getByLabel(/^Ports/).fill('443, 70000');
    await edit.getByRole('button', { name: 'Save network' }).click();
    const portsError = page.locator('#edit-network-ports-error');
    await portsError.waitFor();
    expect(await portsError.textContent()).toBe('“70000” is not a port: each is a whole number from 1 to 65535.');
    expect(await seriousViolations(page)).toEqual([]);

    await edit.getByLabel(/^Ports/).fill('443, 8443');
    await edit.getByLabel('Name', { exact: true }).fill('office-lan');
    await edit.getByLabel('Swept on its schedule').uncheck();
    await edit.getByRole('button', { name: 'Save network' }).click();
    await page.getByRole('link', { name: 'office-lan', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'not scheduled (disabled)' }).waitFor();
    const saved = (await networks(admin)).find((network) => network.id === office.id);
    expect(saved).toEqual(expect.objectContaining({ name: 'office-lan', ports: [443, 8443], enabled: false, ranges: ['192.0.2.0/28'] }));

    await page.getByRole('button', { name: 'Delete office-lan' }).click();
    await page.getByRole('button', { name: 'Yes, delete office-lan' }).click();
    await page.getByRole('link', { name: 'office-lan', exact: true }).waitFor({ state: 'detached' });
    expect((await networks(admin)).map((network) => network.id)).not.toContain(office.id);
  }, 60_000);

  it('gives a viewer no discovery data or actions', async () => {
    const admin = await login(t);
    await t.http
      .post('/api/v1/discovery/networks')
      .set(bearer(admin))
      .send({ name: 'hidden-net', ranges: ['198.51.100.0/29'] })
      .expect(201);
    const viewer = await createUser(t, 'viewer');

    await page.goto('/login');
    await signIn(page, viewer.email, viewer.password);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Discovery' }).count()).toBe(0);
    for (const path of ['/discovery', '/discovery/inbox']) {
      await page.goto(path);
      await page.getByRole('heading', { name: 'Discovery', level: 1 }).waitFor();
      await page.getByRole('alert').getByText('Your role does not include discovery', { exact: false }).waitFor();
      expect(await page.getByText('hidden-net').count()).toBe(0);
      expect(await page.getByRole('table').count()).toBe(0);
      expect(await page.getByRole('button', { name: /network|sweep|promote|dismiss/i }).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
    }
  });
});
