import type { ScanResult, SweepWorkItem, WorkItem } from '@certkeeper/domain';
import { Agent, nextRunAt } from './agent';

describe('nextRunAt', () => {
  const now = new Date('2026-11-21T14:10:30Z');

  it('is the next cron minute plus up to a tenth of the interval, at most a minute', () => {
    expect(nextRunAt('0 * * * *', now, () => 0)?.toISOString()).toBe('2026-11-21T15:00:00.000Z');
    expect(nextRunAt('0 * * * *', now, () => 0.999)?.toISOString()).toBe('2026-11-21T15:00:59.940Z');
    expect(nextRunAt('*/5 * * * *', now, () => 0.999)?.toISOString()).toBe('2026-11-21T14:15:29.970Z');
  });

  it('is null for a schedule that never fires', () => {
    expect(nextRunAt('0 0 31 2 *', now)).toBeNull();
  });
});

describe('Agent', () => {
  it('applies a changed concurrency and schedule from its record without a restart', async () => {
    let config = {
      id: 's',
      name: 's',
      isDefault: true,
      scanCronExpression: '0 * * * *',
      scanConcurrency: 1,
      discoveryNetworks: [] as string[],
    };
    const work: WorkItem[] = Array.from({ length: 8 }, (_, i) => ({
      endpointId: `e${i}`,
      type: 'saml',
      metadataUrl: `https://idp${i}/md`,
    }));
    let running = 0;
    let peak = 0;
    const logged: string[] = [];
    // The API as the agent sees it, in memory: the outside world of this unit.
    const client = {
      getConfig: () => Promise.resolve(config),
      getWork: () => Promise.resolve({ items: work, sweeps: [] }),
      postResults: (results: ScanResult[]) =>
        Promise.resolve(results.map((r) => ({ resultId: r.resultId, endpointId: r.endpointId, status: 'accepted' as const }))),
    };
    const probe = async (item: WorkItem): Promise<ScanResult> => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      return {
        resultId: item.endpointId,
        endpointId: item.endpointId,
        type: 'saml',
        scannedAt: new Date().toISOString(),
        success: true,
        error: null,
        finalUrl: null,
        document: '<x/>',
        digest: null,
      };
    };
    const agent = new Agent({ client, probe, log: (_level, msg) => void logged.push(msg), configReloadMs: 20, newWorkPollMs: 60_000 });
    await agent.start();
    try {
      // The start-up poll runs in the background: let its first probes start.
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(peak).toBe(1); // the start-up poll ran with concurrency 1
      config = { ...config, scanConcurrency: 4, scanCronExpression: '*/5 * * * *' };
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(logged).toContain('configuration changed');
      // The start-up poll's cycle must be over, or its probes count towards the next cycle's peak.
      while (!logged.includes('cycle finished')) await new Promise((resolve) => setTimeout(resolve, 5));
      peak = 0;
      await agent.runOnce();
      expect(peak).toBe(4);
    } finally {
      await agent.stop();
    }
  });

  it('hands queued sweeps to the sweep runner within one poll even while a cycle runs, and stops it on stop()', async () => {
    const config = { id: 's', name: 's', isDefault: true, scanCronExpression: '0 0 1 1 *', scanConcurrency: 3, discoveryNetworks: [] };
    const item: WorkItem = { endpointId: 'e1', type: 'saml', metadataUrl: 'https://idp/md' };
    let sweeps: SweepWorkItem[] = [];
    const workRequests: { neverScanned?: boolean }[] = [];
    const client = {
      getConfig: () => Promise.resolve(config),
      getWork: (options: { neverScanned?: boolean } = {}) => {
        workRequests.push(options);
        return Promise.resolve({ items: [item], sweeps });
      },
      postResults: (results: ScanResult[]) =>
        Promise.resolve(results.map((r) => ({ resultId: r.resultId, endpointId: r.endpointId, status: 'accepted' as const }))),
    };
    // The start-up cycle's only probe hangs until released: a long cycle.
    let release = () => undefined as void;
    let hanging = 0;
    const probe = (probed: WorkItem) =>
      new Promise<ScanResult>((resolve) => {
        hanging += 1;
        release = () => {
          hanging -= 1;
          resolve({
            resultId: 'r',
            endpointId: probed.endpointId,
            type: 'saml',
            scannedAt: new Date().toISOString(),
            success: false,
            error: 'x',
            finalUrl: null,
            document: null,
            digest: null,
          });
        };
      });
    const runner = { offer: jest.fn(), stop: jest.fn(() => Promise.resolve()) };
    const agent = new Agent({ client, probe, sweeps: runner, log: () => undefined, newWorkPollMs: 20 });

    // --once runs no sweeps: the agent is not started.
    sweeps = [{ sweepId: 'sw-0', networkId: 'n', ranges: ['192.0.2.0/30'], ports: [443] }];
    const once = agent.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    await once;
    expect(runner.offer).not.toHaveBeenCalled();

    sweeps = [];
    await agent.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(runner.offer).toHaveBeenLastCalledWith([], 3);
      const sweep: SweepWorkItem = { sweepId: 'sw-1', networkId: 'n', ranges: ['192.0.2.0/30'], ports: [443] };
      sweeps = [sweep];
      await new Promise((resolve) => setTimeout(resolve, 60));
      // The cycle still runs (its probe hangs), yet the poll read the work and passed the sweep on.
      expect(hanging).toBe(1);
      expect(runner.offer).toHaveBeenLastCalledWith([sweep], 3);
      expect(workRequests.length).toBeGreaterThan(3);
    } finally {
      release();
      await agent.stop();
    }
    expect(runner.stop).toHaveBeenCalledTimes(1);
  });

  it('waits for a schedule further away than a timer can reach instead of running at once', async () => {
    // The next 1 January is more than 24.8 days away except in December; setTimeout would fire at once.
    const config = { id: 's', name: 's', isDefault: true, scanCronExpression: '0 0 1 1 *', scanConcurrency: 1, discoveryNetworks: [] };
    const requests: { neverScanned?: boolean }[] = [];
    const client = {
      getConfig: () => Promise.resolve(config),
      getWork: (options: { neverScanned?: boolean } = {}) => {
        requests.push(options);
        return Promise.resolve({ items: [], sweeps: [] });
      },
      postResults: () => Promise.resolve([]),
    };
    const agent = new Agent({ client, probe: () => Promise.reject(new Error('no work')), log: () => undefined, newWorkPollMs: 60_000 });
    await agent.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await agent.stop();
    // Only the start-up poll for never-scanned endpoints ran, no scheduled cycle.
    expect(requests).toEqual([{ neverScanned: true }]);
  });
});
