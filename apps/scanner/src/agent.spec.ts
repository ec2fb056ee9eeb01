import type { ScanResult, WorkItem } from '@certkeeper/domain';
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
      getWork: () => Promise.resolve(work),
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
      expect(peak).toBe(1); // the start-up poll ran with concurrency 1
      config = { ...config, scanConcurrency: 4, scanCronExpression: '*/5 * * * *' };
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(logged).toContain('configuration changed');
      peak = 0;
      await agent.runOnce();
      expect(peak).toBe(4);
    } finally {
      await agent.stop();
    }
  });
});
