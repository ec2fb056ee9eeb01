import { DeliveryLanes } from './delivery-lanes';

/** A task that runs until released, noting when it started. */
function gate(started: string[], name: string): { task: () => Promise<void>; release: () => void } {
  let release = () => undefined as void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return {
    task: () => {
      started.push(name);
      return done;
    },
    release: () => release(),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('DeliveryLanes', () => {
  it('keeps each lane within its limit and all within the global one, starting lanes in turn', async () => {
    const lanes = new DeliveryLanes(3, 100);
    const started: string[] = [];
    const gates = new Map<string, { release: () => void }>();
    for (const name of ['a1', 'a2', 'a3', 'b1', 'b2', 'c1']) {
      const g = gate(started, name);
      gates.set(name, g);
      await lanes.add({ key: name[0], limit: 2 }, g.task);
    }
    // a took its two as they came; b then got the last slot, and c waits behind nobody's backlog but the limit.
    expect(started).toEqual(['a1', 'a2', 'b1']);
    gates.get('a1')!.release();
    await tick();
    // The freed slot goes to the next lane in turn (c), not back to the busy lane a.
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1']);
    for (const name of ['a2', 'b1', 'c1']) gates.get(name)!.release();
    await tick();
    expect(started.slice(4).sort()).toEqual(['a3', 'b2']);
    for (const name of ['a3', 'b2']) gates.get(name)!.release();
    await lanes.drain();
  });

  it('lets a lane whose deliveries stall hold only its own slots', async () => {
    const lanes = new DeliveryLanes(4, 100);
    const started: string[] = [];
    const stalled = Array.from({ length: 5 }, (_, n) => gate(started, `slow${n}`));
    for (const g of stalled) await lanes.add({ key: 'slow', limit: 2 }, g.task);
    const fast: string[] = [];
    for (let n = 0; n < 10; n += 1) await lanes.add({ key: 'fast', limit: 2 }, () => Promise.resolve(void fast.push(`fast${n}`)));
    await tick();
    expect(fast).toHaveLength(10);
    expect(started).toEqual(['slow0', 'slow1']);
    stalled.forEach((g) => g.release());
    await lanes.drain();
    expect(started).toHaveLength(5);
  });

  it('counts a task of several deliveries as that many against its lane and the global limit', async () => {
    const lanes = new DeliveryLanes(4, 100);
    const started: string[] = [];
    const group = gate(started, 'a-group');
    await lanes.add({ key: 'a', limit: 3 }, group.task, 3);
    const single = gate(started, 'a-single');
    await lanes.add({ key: 'a', limit: 3 }, single.task);
    const pair = gate(started, 'b-pair');
    await lanes.add({ key: 'b', limit: 3 }, pair.task, 2);
    const other = gate(started, 'c-single');
    await lanes.add({ key: 'c', limit: 3 }, other.task);
    // a's three fill its lane, and the pair would pass the global four: only c's single fits.
    expect(started).toEqual(['a-group', 'c-single']);
    group.release();
    await tick();
    // Four under way again: a's single beside c's, and b's pair.
    expect(started.slice(2).sort()).toEqual(['a-single', 'b-pair']);
    for (const g of [single, pair, other]) g.release();
    await lanes.drain();
  });

  it('makes add wait while the most it may hold are queued or under way', async () => {
    const lanes = new DeliveryLanes(1, 2);
    const started: string[] = [];
    const first = gate(started, 'first');
    await lanes.add({ key: 'x', limit: 1 }, first.task);
    await lanes.add({ key: 'x', limit: 1 }, () => Promise.resolve(void started.push('second')));
    let added = false;
    const third = lanes.add({ key: 'x', limit: 1 }, () => Promise.resolve(void started.push('third'))).then(() => (added = true));
    await tick();
    expect(added).toBe(false);
    first.release();
    await third;
    await lanes.drain();
    expect(started).toEqual(['first', 'second', 'third']);
  });

  it('drains every task, then throws the first failure of a task', async () => {
    const lanes = new DeliveryLanes(2, 10);
    const finished: string[] = [];
    await lanes.add({ key: 'x', limit: 2 }, () => Promise.reject(new Error('database gone')));
    await lanes.add({ key: 'x', limit: 2 }, async () => {
      await tick();
      finished.push('other');
    });
    await expect(lanes.drain()).rejects.toThrow('database gone');
    expect(finished).toEqual(['other']);
  });
});
