import { forEachConcurrently, Semaphore } from './concurrency';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Semaphore', () => {
  it('runs at most `limit` tasks at once, in the order they came, and passes on results and errors', async () => {
    const semaphore = new Semaphore(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (id: number) => async () => {
      started.push(id);
      running += 1;
      peak = Math.max(peak, running);
      await tick();
      running -= 1;
      if (id === 3) throw new Error('task 3 failed');
      return id * 10;
    };
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((id) => semaphore.run(task(id))));
    expect(peak).toBe(2);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      10,
      20,
      'task 3 failed',
      40,
      50,
    ]);
    // Every slot was given back: a full batch runs again at once.
    let concurrent = 0;
    await Promise.all([1, 2].map(() => semaphore.run(async () => ((concurrent += 1), await tick()))));
    expect(concurrent).toBe(2);
  });
});

describe('forEachConcurrently', () => {
  it('visits every item with at most `limit` in flight', async () => {
    let running = 0;
    let peak = 0;
    const seen: number[] = [];
    await forEachConcurrently([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      running += 1;
      peak = Math.max(peak, running);
      await tick();
      seen.push(item);
      running -= 1;
    });
    expect(peak).toBe(3);
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});
