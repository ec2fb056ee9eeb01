import { ConflictException, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { RenewalInfoRefresher } from '../renewal-info/renewal-info.refresher';
import { RenewalsRepository } from '../renewals/renewals.repository';
import { SupersedingPolicy } from '../renewals/superseding-policy';
import { RevocationService } from '../revocation/revocation.service';
import { RootStoreRefresher } from '../trust/root-store-refresher';
import { MaintenanceRepository, type MaintenanceTaskName } from './maintenance.repository';

export const MAINTENANCE_SCHEDULE = '30 3 * * *';
// Renewal windows can move within hours (a CA asking for early renewal) and revocation cannot wait
// a night (nor the findings the clock changes): asked hourly, each certificate at most once per
// Retry-After, each CRL until its nextUpdate.
export const HOURLY_MAINTENANCE_SCHEDULE = '45 * * * *';
const SYSTEM: ActorContext = { actor: 'system', actorId: null, requestId: null };
const DAY_MS = 24 * 60 * 60 * 1000;

export interface TaskStatus {
  name: string;
  schedule: string;
  lastRunAt: Date | null;
  lastOutcome: string | null;
  lastCounts: Record<string, number> | null;
  /** A run of it is going now, here or on another replica (it holds the task's lock). */
  running: boolean;
}

export interface TaskResult {
  name: string;
  outcome: string;
  counts: Record<string, number>;
}

/**
 * The nightly pipeline, each task also runnable on demand. Every task runs under its own
 * advisory lock (a second run while one is going is refused, not run twice), records its last
 * run, outcome and counts, and writes an audit entry.
 */
@Injectable()
export class MaintenanceService {
  private readonly logger = new Logger('Maintenance');
  private readonly tasks: { name: MaintenanceTaskName; schedule: string; run: () => Promise<Record<string, number>> }[];

  constructor(
    private readonly maintenance: MaintenanceRepository,
    private readonly audit: AuditService,
    private readonly rootStores: RootStoreRefresher,
    private readonly renewalInfo: RenewalInfoRefresher,
    private readonly revocation: RevocationService,
    private readonly renewals: RenewalsRepository,
    private readonly superseding: SupersedingPolicy,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    // In pipeline order: root stores first (the order of docs/api-contract.md section 5); history
    // before pruning, so pruning sees what retention freed. Each task's lock key is in database/advisory-lock-keys.ts.
    const nightly = MAINTENANCE_SCHEDULE;
    this.tasks = [
      { name: 'refresh-root-stores', schedule: nightly, run: () => this.rootStores.refreshFromSources() },
      {
        name: 'purge-history',
        schedule: nightly,
        run: () => this.maintenance.purgeHistory(new Date(this.clock.now().getTime() - this.config.retentionDays * DAY_MS)),
      },
      { name: 'prune-certificates', schedule: nightly, run: () => this.pruneCertificates() },
      { name: 'purge-alert-records', schedule: nightly, run: () => this.maintenance.purgeAlertRecords() },
      { name: 'refresh-renewal-info', schedule: HOURLY_MAINTENANCE_SCHEDULE, run: () => this.renewalInfo.refresh() },
      { name: 'check-revocation', schedule: HOURLY_MAINTENANCE_SCHEDULE, run: () => this.revocation.checkAll() },
    ];
  }

  async listTasks(): Promise<TaskStatus[]> {
    const [lastRuns, running] = await Promise.all([this.maintenance.lastRuns(), this.maintenance.runningTasks()]);
    const runs = new Map(lastRuns.map((run) => [run.task, run]));
    return this.tasks.map(({ name, schedule }) => {
      const run = runs.get(name);
      return {
        name,
        schedule,
        lastRunAt: run?.lastRunAt ?? null,
        lastOutcome: run?.lastOutcome ?? null,
        lastCounts: run?.lastCounts ?? null,
        running: running.has(name),
      };
    });
  }

  async runTask(name: string, actor: ActorContext = SYSTEM): Promise<TaskResult> {
    const index = this.tasks.findIndex((task) => task.name === name);
    if (index < 0) throw new NotFoundException(`Unknown maintenance task ${name}; known: ${this.tasks.map((t) => t.name).join(', ')}.`);
    const result = await this.maintenance.withTaskLock(this.tasks[index].name, async () => {
      let outcome = 'succeeded';
      let counts: Record<string, number> = {};
      try {
        counts = await this.tasks[index].run();
      } catch (error) {
        outcome = `failed: ${error instanceof Error ? error.message : String(error)}`;
        this.logger.error(`Maintenance task ${name} failed: ${outcome}`);
      }
      await this.maintenance.recordRun(name, this.clock.now(), outcome, counts);
      await this.audit.record(actor, {
        action: `maintenance:${name}`,
        targetType: 'maintenance',
        targetId: name,
        details: { outcome, counts },
      });
      return { name, outcome, counts };
    });
    if (!result) throw new ConflictException(`Maintenance task ${name} is already running.`);
    return result;
  }

  /** Unreferenced certificates pruned; a link whose renewal went with them keeps the next one, if any. */
  private async pruneCertificates(): Promise<Record<string, number>> {
    const counts = await this.maintenance.pruneCertificates();
    if (counts.certificates > 0) await this.renewals.refreshSuperseded('all', await this.superseding.window());
    return counts;
  }

  /** The tasks of one schedule, in order; a task already running elsewhere is skipped. */
  async runScheduled(schedule: string): Promise<void> {
    for (const task of this.tasks.filter((t) => t.schedule === schedule)) {
      await this.runTask(task.name).catch((error: unknown) =>
        this.logger.warn(`Skipped ${task.name}: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
  }
}
