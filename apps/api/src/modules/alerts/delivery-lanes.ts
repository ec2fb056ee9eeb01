/** Where a delivery waits its turn: a receiver of its own (a channel), or a session its deliveries share (e-mail's SMTP). */
export interface Lane {
  key: string;
  /** How many of the lane's deliveries may be under way at once. */
  limit: number;
}

interface LaneState extends Lane {
  running: number;
  queue: { task: () => Promise<void>; weight: number }[];
}

/**
 * The alert job's deliveries under way at once (docs/api-contract.md section 17): each lane has
 * its own queue and limit, and every lane shares one global limit, so a slow receiver fills its
 * own lane, never the others'. What it runs is each delivery's whole claim, unchanged; only the
 * order in which they finish changes.
 */
export class DeliveryLanes {
  private readonly lanes = new Map<string, LaneState>();
  private running = 0;
  /** Queued and running: what `add` keeps below `maxHeld`. */
  private held = 0;
  private failure: { error: unknown } | null = null;
  private changed: (() => void)[] = [];

  /**
   * @param globalLimit deliveries under way at once over every lane; each holds a database
   *   connection for its claim and briefly another for its log, so it stays well within the pool
   * @param maxHeld deliveries queued or under way before `add` waits: the run's memory stays flat
   */
  constructor(
    private readonly globalLimit: number,
    private readonly maxHeld: number,
  ) {}

  /**
   * Queues `task` on its lane; waits only while `maxHeld` deliveries are queued or under way.
   * `weight`: the deliveries the task makes at once (a channel's claim group), counted against
   * the lane's limit and the global one alike.
   */
  async add(lane: Lane, task: () => Promise<void>, weight = 1): Promise<void> {
    while (this.held >= this.maxHeld) await this.nextChange();
    const state = this.lanes.get(lane.key) ?? { key: lane.key, limit: lane.limit, running: 0, queue: [] };
    this.lanes.set(lane.key, state);
    state.queue.push({ task, weight });
    this.held += weight;
    this.startWhatFits();
  }

  /**
   * Waits for every queued delivery to finish.
   * @throws what a task threw (the job's own failure), once all have finished
   */
  async drain(): Promise<void> {
    while (this.held > 0) await this.nextChange();
    if (this.failure) throw this.failure.error;
  }

  /**
   * Starts queued deliveries while slots are free, each from the lane with the fewest under way
   * (the one that started least recently among equals), so no lane waits behind a busier one.
   */
  private startWhatFits(): void {
    while (this.running < this.globalLimit) {
      let next: LaneState | null = null;
      for (const state of this.lanes.values()) {
        const weight = state.queue[0]?.weight;
        const fits = weight !== undefined && state.running + weight <= state.limit && this.running + weight <= this.globalLimit;
        if (fits && (next === null || state.running < next.running)) next = state;
      }
      if (next === null) return;
      // Last in the order of lanes: it started most recently.
      this.lanes.delete(next.key);
      this.lanes.set(next.key, next);
      this.start(next, next.queue.shift()!);
    }
  }

  private start(state: LaneState, { task, weight }: { task: () => Promise<void>; weight: number }): void {
    state.running += weight;
    this.running += weight;
    void task()
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => {
        state.running -= weight;
        this.running -= weight;
        this.held -= weight;
        if (state.running === 0 && state.queue.length === 0) this.lanes.delete(state.key);
        this.startWhatFits();
        const waiting = this.changed;
        this.changed = [];
        waiting.forEach((wake) => wake());
      });
  }

  private nextChange(): Promise<void> {
    return new Promise((resolve) => this.changed.push(resolve));
  }
}
