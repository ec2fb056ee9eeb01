import type { ScanResult, SweepWorkItem, WorkItem } from '@certkeeper/domain/protocol';
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
      // The start-up poll's due cycle must be over, or its probes count towards the next cycle's peak.
      while (!logged.includes('due work scanned')) await new Promise((resolve) => setTimeout(resolve, 5));
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
    const runner = { offer: jest.fn(), runAll: jest.fn(() => Promise.resolve(0)), stop: jest.fn(() => Promise.resolve()) };
    const agent = new Agent({ client, probe, sweeps: runner, log: () => undefined, newWorkPollMs: 20 });

    // A cycle run alone offers no sweeps: the agent is not started.
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
      const requestsBefore = workRequests.length;
      // A few polls (every 20 ms), however slowly a loaded machine runs their timers.
      for (
        const started = Date.now();
        (workRequests.length <= 3 || workRequests.length < requestsBefore + 2) && Date.now() - started < 5000;
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
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

  it('runs the sweeps its cycle listed after the cycle with --once, and says which the API did not hear the end of', async () => {
    const config = { id: 's', name: 's', isDefault: true, scanCronExpression: '0 0 1 1 *', scanConcurrency: 4, discoveryNetworks: [] };
    const queued: SweepWorkItem[] = [
      { sweepId: 'sw-1', networkId: 'n', ranges: ['192.0.2.0/30'], ports: [443] },
      { sweepId: 'sw-2', networkId: 'n', ranges: ['192.0.2.8/30'], ports: [443] },
    ];
    const item: WorkItem = { endpointId: 'e1', type: 'saml', metadataUrl: 'https://idp/md' };
    const events: string[] = [];
    const client = {
      getConfig: () => Promise.resolve(config),
      getWork: () => Promise.resolve({ items: [item], sweeps: queued }),
      postResults: (results: ScanResult[]) => {
        events.push('posted');
        return Promise.resolve(results.map((r) => ({ resultId: r.resultId, endpointId: r.endpointId, status: 'accepted' as const })));
      },
    };
    const runner = {
      offer: jest.fn(),
      runAll: jest.fn((sweeps: readonly SweepWorkItem[]) => {
        events.push(`swept ${sweeps.map((sweep) => sweep.sweepId).join(',')}`);
        return Promise.resolve(1);
      }),
      stop: jest.fn(() => Promise.resolve()),
    };
    const probe = (probed: WorkItem): Promise<ScanResult> => {
      events.push('probed');
      return Promise.resolve({
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
    const agent = new Agent({ client, probe, sweeps: runner, log: () => undefined });

    const report = await agent.runOnceThenSweeps();
    expect(report).toEqual({ cycle: expect.objectContaining({ endpoints: 1, posted: 1, pending: 0 }), sweepsUndelivered: 1 });
    expect(events).toEqual(['probed', 'posted', 'swept sw-1,sw-2']);
    expect(runner.runAll).toHaveBeenCalledWith(queued, 4);
    expect(runner.offer).not.toHaveBeenCalled();
  });

  it('runs cycles back to back with backToBack, whatever the cron says', async () => {
    // A yearly schedule: without backToBack no cron cycle would run during this test.
    const config = { id: 's', name: 's', isDefault: true, scanCronExpression: '0 0 1 1 *', scanConcurrency: 2, discoveryNetworks: [] };
    const item: WorkItem = { endpointId: 'e1', type: 'saml', metadataUrl: 'https://idp/md' };
    const cycles = (backToBack: boolean) => {
      let full = 0;
      const client = {
        getConfig: () => Promise.resolve(config),
        getWork: ({ neverScanned }: { neverScanned?: boolean } = {}) => {
          if (!neverScanned) full += 1;
          // Nothing due: the long-poll answers empty, as the API does when its wait ends.
          return Promise.resolve({ items: neverScanned ? [] : [item], sweeps: [] });
        },
        postResults: (results: ScanResult[]) =>
          Promise.resolve(results.map((r) => ({ resultId: r.resultId, endpointId: r.endpointId, status: 'accepted' as const }))),
      };
      const probe = async (probed: WorkItem): Promise<ScanResult> => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return {
          resultId: `r${full}`,
          endpointId: probed.endpointId,
          type: 'saml',
          scannedAt: new Date().toISOString(),
          success: false,
          error: 'x',
          finalUrl: null,
          document: null,
          digest: null,
        };
      };
      return { agent: new Agent({ client, probe, log: () => undefined, newWorkPollMs: 60_000, backToBack }), full: () => full };
    };
    const steady = cycles(true);
    const scheduled = cycles(false);
    await Promise.all([steady.agent.start(), scheduled.agent.start()]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await Promise.all([steady.agent.stop(), scheduled.agent.stop()]);
    expect(scheduled.full()).toBe(0);
    expect(steady.full()).toBeGreaterThan(5);
  });

  it('waits for a schedule further away than a timer can reach instead of running at once', async () => {
    // The next 1 January is more than 24.8 days away except in December; setTimeout would fire at once.
    const config = { id: 's', name: 's', isDefault: true, scanCronExpression: '0 0 1 1 *', scanConcurrency: 1, discoveryNetworks: [] };
    const requests: { neverScanned?: boolean; waitSeconds?: number }[] = [];
    const client = {
      getConfig: () => Promise.resolve(config),
      getWork: ({ neverScanned, waitSeconds }: { neverScanned?: boolean; waitSeconds?: number } = {}) => {
        requests.push({ neverScanned, waitSeconds });
        return Promise.resolve({ items: [], sweeps: [] });
      },
      postResults: () => Promise.resolve([]),
    };
    const agent = new Agent({ client, probe: () => Promise.reject(new Error('no work')), log: () => undefined, newWorkPollMs: 60_000 });
    await agent.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await agent.stop();
    // Only the first long-poll for due work ran (its wait held to 25 s), no scheduled cycle.
    expect(requests).toEqual([{ neverScanned: true, waitSeconds: 25 }]);
  });

  it('abandons a held long-poll on stop() and backs off after failed polls instead of spinning', async () => {
    const config = { id: 's', name: 's', isDefault: true, scanCronExpression: '0 0 1 1 *', scanConcurrency: 1, discoveryNetworks: [] };
    let polls = 0;
    let abandoned = false;
    // A poll the API holds for its whole wait, as when nothing is due.
    const held = {
      getConfig: () => Promise.resolve(config),
      getWork: ({ signal }: { signal?: AbortSignal } = {}) =>
        new Promise<never>((_resolve, reject) => {
          polls += 1;
          signal?.addEventListener('abort', () => {
            abandoned = true;
            reject(new Error('aborted'));
          });
        }),
      postResults: () => Promise.resolve([]),
    };
    const agent = new Agent({ client: held, probe: () => Promise.reject(new Error('no work')), log: () => undefined });
    await agent.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await agent.stop();
    expect({ polls, abandoned }).toEqual({ polls: 1, abandoned: true });

    // An API that fails at once: the loop waits Backoff's delay (1 s and more) between polls.
    polls = 0;
    const failing = { ...held, getWork: () => ((polls += 1), Promise.reject(new Error('unreachable'))) };
    const retrying = new Agent({
      client: failing,
      probe: () => Promise.reject(new Error('no work')),
      log: () => undefined,
      newWorkPollMs: 10,
    });
    await retrying.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await retrying.stop();
    expect(polls).toBe(1);
  });

  it('scans due work while a scheduled cycle is still running', async () => {
    const config = { id: 's', name: 's', isDefault: true, scanCronExpression: '0 0 1 1 *', scanConcurrency: 2, discoveryNetworks: [] };
    const slow: WorkItem = { endpointId: 'slow', type: 'saml', metadataUrl: 'https://slow/md' };
    const fresh: WorkItem = { endpointId: 'fresh', type: 'saml', metadataUrl: 'https://fresh/md' };
    let due: WorkItem[] = [];
    const posted: string[] = [];
    const client = {
      getConfig: () => Promise.resolve(config),
      getWork: ({ neverScanned }: { neverScanned?: boolean } = {}) => Promise.resolve({ items: neverScanned ? due : [slow], sweeps: [] }),
      postResults: (results: ScanResult[]) => {
        posted.push(...results.map((r) => r.endpointId));
        // Ingested: no longer due.
        due = due.filter((item) => !results.some((r) => r.endpointId === item.endpointId));
        return Promise.resolve(results.map((r) => ({ resultId: r.resultId, endpointId: r.endpointId, status: 'accepted' as const })));
      },
    };
    let releaseSlow = () => undefined as void;
    const probe = (item: WorkItem) =>
      new Promise<ScanResult>((resolve) => {
        const result: ScanResult = {
          resultId: `r-${item.endpointId}`,
          endpointId: item.endpointId,
          type: 'saml',
          scannedAt: new Date().toISOString(),
          success: false,
          error: 'x',
          finalUrl: null,
          document: null,
          digest: null,
        };
        if (item.endpointId === 'slow') releaseSlow = () => resolve(result);
        else resolve(result);
      });
    const agent = new Agent({ client, probe, log: () => undefined, newWorkPollMs: 20 });
    await agent.start();
    try {
      const cycle = agent.runOnce(); // a scheduled cycle whose probe hangs
      await new Promise((resolve) => setTimeout(resolve, 10));
      due = [fresh];
      for (let i = 0; i < 100 && !posted.includes('fresh'); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(posted).toEqual(['fresh']);
      releaseSlow();
      await cycle;
      expect(posted).toEqual(['fresh', 'slow']);
    } finally {
      releaseSlow();
      await agent.stop();
    }
  });
});
