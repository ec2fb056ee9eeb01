import { ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import {
  nextCronTime,
  parseNetworkScope,
  scopeContains,
  type SweepReport,
  type SweepReportOutcome,
  type SweepWorkItem,
} from '@certkeeper/domain';
import { Clock } from '../../common/clock';
import type { Transaction } from '../../database/transaction';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { InboxService } from './inbox.service';
import type { DiscoveryNetworkEntity } from './network.entity';
import type { DiscoverySweepEntity } from './sweep.entity';
import { SweepsRepository } from './sweeps.repository';

/**
 * A running sweep whose agent has said nothing for this long is failed: its agent crashed or was
 * restarted. Agents report at least every few seconds while probes finish (a probe ends within
 * seconds) and retry a report the API could not take for up to 10 minutes, so 15 minutes of
 * silence is an agent that is gone, not a slow one.
 */
export const SWEEP_QUIET_LIMIT_MS = 15 * 60_000;

type Refusal = { code: 400 | 403 | 404 | 409; error: string };

/**
 * Sweeps of discovery networks (docs/api-contract.md section 8): queued on request or by the
 * network's cron, claimed and reported by the assigned scanner's agent, failed when that agent
 * goes quiet or its scanner is deleted. At most one is queued or running per network.
 */
@Injectable()
export class SweepsService {
  private readonly logger = new Logger('Discovery');

  constructor(
    private readonly sweeps: SweepsRepository,
    private readonly inbox: InboxService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  /** POST /discovery/networks/{id}/sweeps: 404 unknown network, 409 no scanner or a sweep already queued or running. */
  requestSweep(networkId: string, actor: ActorContext): Promise<DiscoverySweepEntity> {
    return this.sweeps.inTransaction(async (transaction) => {
      const network = await this.sweeps.lockNetwork(networkId, transaction);
      if (!network) throw new NotFoundException('Network not found.');
      if (network.scannerId === null) {
        throw new ConflictException('This network has no scanner since its scanner was deleted: assign one before sweeping.');
      }
      const now = this.clock.now();
      // A sweep left behind by a deleted scanner must not block this one until the next scheduler tick.
      await this.sweeps.failActive({ networkId, orphaned: true }, SCANNER_DELETED, now, transaction);
      const sweep = await this.sweeps.queue(
        { networkId, scannerId: network.scannerId, trigger: 'request', addressesTotal: addressCountOf(network), requestedAt: now },
        transaction,
      );
      if (!sweep) throw new ConflictException('A sweep of this network is already queued or running.');
      await this.audit.record(
        actor,
        { action: 'network:sweep', targetType: 'network', targetId: networkId, details: { sweepId: sweep.id } },
        transaction,
      );
      return sweep;
    });
  }

  async listSweeps(networkId: string, window: { limit: number; offset: number }) {
    if (!(await this.sweeps.networkExists(networkId))) throw new NotFoundException('Network not found.');
    return this.sweeps.listForNetwork(networkId, window);
  }

  async getSweep(id: string): Promise<DiscoverySweepEntity> {
    const sweep = await this.sweeps.findById(id);
    if (!sweep) throw new NotFoundException('Sweep not found.');
    return sweep;
  }

  // --- the scanner protocol ---

  queuedFor(scannerId: string): Promise<SweepWorkItem[]> {
    return this.sweeps.queuedFor(scannerId);
  }

  /** The ranges of the enabled networks a scanner sweeps, each once, for `GET /scanner/config`. */
  async rangesSweptBy(scannerId: string): Promise<string[]> {
    return [...new Set((await this.sweeps.networksOf(scannerId)).flatMap((network) => network.ranges))];
  }

  /**
   * An agent claims a queued sweep: it becomes `running` with the network's current ranges and
   * ports, which are what the agent probes and what its findings are checked against.
   */
  claim(scannerId: string, sweepId: string): Promise<{ ok: true; work: SweepWorkItem } | { ok: false; refusal: Refusal }> {
    return this.sweeps.inTransaction(async (transaction) => {
      const locked = await this.lockSweepAndNetwork(sweepId, transaction);
      const refusal =
        ownershipRefusal(locked?.sweep ?? null, scannerId) ??
        (locked!.sweep.status === 'queued' ? null : notRunnable(locked!.sweep, 'queued'));
      if (refusal) return { ok: false as const, refusal };
      const { network } = locked!;
      const addressesTotal = addressCountOf(network);
      await this.sweeps.start(sweepId, { ranges: network.ranges, ports: network.ports, addressesTotal }, this.clock.now(), transaction);
      this.logger.log(`Sweep ${sweepId} of network ${network.id} started by scanner ${scannerId} (${addressesTotal} addresses).`);
      return { ok: true as const, work: { sweepId, networkId: network.id, ranges: network.ranges, ports: network.ports } };
    });
  }

  /**
   * Locks a sweep's network, then the sweep: the order a network delete takes them (the network,
   * then its sweeps by cascade), so a claim or report racing a delete waits instead of deadlocking.
   * Null when the sweep is gone (a network delete takes its sweeps with it).
   */
  private async lockSweepAndNetwork(
    sweepId: string,
    transaction: Transaction,
  ): Promise<{ sweep: DiscoverySweepEntity; network: DiscoveryNetworkEntity } | null> {
    const unlocked = await this.sweeps.findById(sweepId, transaction);
    const network = unlocked === null ? null : await this.sweeps.lockNetwork(unlocked.networkId, transaction);
    const sweep = network === null ? null : await this.sweeps.lockById(sweepId, transaction);
    return sweep === null || network === null ? null : { sweep, network };
  }

  /** Each report on its own: a refused one never blocks the others, a repeated one changes nothing. */
  async applyReports(scannerId: string, reports: SweepReport[]): Promise<SweepReportOutcome[]> {
    const outcomes: SweepReportOutcome[] = [];
    for (const report of reports) outcomes.push(await this.applyReport(scannerId, report));
    return outcomes;
  }

  private applyReport(scannerId: string, report: SweepReport): Promise<SweepReportOutcome> {
    const ids = { reportId: report.reportId, sweepId: report.sweepId };
    return this.sweeps.inTransaction(async (transaction) => {
      const sweep = (await this.lockSweepAndNetwork(report.sweepId, transaction))?.sweep ?? null;
      const refused = ownershipRefusal(sweep, scannerId);
      if (refused) return { ...ids, status: 'rejected' as const, ...refused };
      // Under the sweep's row lock, so a report and its retry cannot both pass this check.
      if ((await this.sweeps.knownReports([report.reportId], transaction)).size > 0) return { ...ids, status: 'duplicate' as const };
      const notRunning = sweep!.status === 'running' ? null : notRunnable(sweep!, 'running');
      if (notRunning) return { ...ids, status: 'rejected' as const, ...notRunning };
      const outside = findingOutside(sweep!, report);
      if (outside) return { ...ids, status: 'rejected' as const, code: 400 as const, error: outside };
      const now = this.clock.now();
      await this.sweeps.recordReport(report.reportId, sweep!.id, now, transaction);
      const found = await this.inbox.recordFindings(sweep!, report.findings, now, transaction);
      const finish = report.final
        ? { status: report.error === null ? ('completed' as const) : ('failed' as const), error: report.error }
        : undefined;
      await this.sweeps.applyProgress(
        sweep!,
        { addressesProbed: report.addressesProbed, servicesFound: found, at: now, finish },
        transaction,
      );
      if (finish) this.logger.log(`Sweep ${sweep!.id} ${finish.status}${finish.error ? `: ${finish.error}` : ''}.`);
      return { ...ids, status: 'accepted' as const };
    });
  }

  // --- the scheduler ---

  /**
   * Queues a sweep for every enabled network with a scanner whose cron fired since its last
   * queued slot (or since it was created). Safe on every replica: each slot is claimed once.
   */
  async queueDueSweeps(): Promise<number> {
    const now = this.clock.now();
    let queued = 0;
    for (const network of await this.sweeps.schedulable()) {
      if (network.scannerId === null) continue;
      const slot = nextCronTime(network.scanCronExpression, network.lastScheduledAt ?? network.createdAt);
      if (!slot || slot > now) continue;
      const scannerId = network.scannerId;
      queued += await this.sweeps.inTransaction(async (transaction) => {
        if (!(await this.sweeps.claimSlot(network.id, slot, now, transaction))) return 0;
        const sweep = await this.sweeps.queue(
          { networkId: network.id, scannerId, trigger: 'schedule', addressesTotal: addressCountOf(network), requestedAt: now },
          transaction,
        );
        return sweep ? 1 : 0;
      });
    }
    return queued;
  }

  /** Fails running sweeps whose agent went quiet, and sweeps whose scanner was deleted. */
  async failAbandonedSweeps(): Promise<number> {
    const now = this.clock.now();
    const quiet = await this.sweeps.failActive(
      { quietSince: new Date(now.getTime() - SWEEP_QUIET_LIMIT_MS) },
      `the agent stopped reporting: nothing heard for ${SWEEP_QUIET_LIMIT_MS / 60_000} minutes`,
      now,
    );
    const orphaned = await this.sweeps.failActive({ orphaned: true }, SCANNER_DELETED, now);
    if (quiet + orphaned > 0)
      this.logger.warn(`Failed ${quiet} sweep(s) whose agent went quiet and ${orphaned} whose scanner was deleted.`);
    return quiet + orphaned;
  }
}

const SCANNER_DELETED = 'the scanner assigned to run it was deleted';

function ownershipRefusal(sweep: DiscoverySweepEntity | null, scannerId: string): Refusal | null {
  if (!sweep) return { code: 404, error: 'no sweep has this id' };
  if (sweep.scannerId !== scannerId) return { code: 403, error: 'this sweep is not assigned to this scanner' };
  return null;
}

function notRunnable(sweep: DiscoverySweepEntity, expected: 'queued' | 'running'): Refusal {
  return { code: 409, error: `the sweep is ${sweep.status}, not ${expected}${sweep.error ? ` (${sweep.error})` : ''}` };
}

/** The agent was given the sweep's ranges and ports: a finding elsewhere is a bug, and the report is refused whole. */
function findingOutside(sweep: DiscoverySweepEntity, report: SweepReport): string | null {
  const scope = parseNetworkScope({ ranges: sweep.ranges, ports: sweep.ports });
  if (!scope.ok) throw new Error(`sweep ${sweep.id} holds ranges that do not parse: ${scope.problems.join('; ')}`);
  const outside = report.findings.find(
    (finding) => !scope.value.ports.includes(finding.port) || !scopeContains(scope.value, finding.address),
  );
  return outside ? `${outside.address} port ${outside.port} is outside the sweep's ranges and ports` : null;
}

function addressCountOf(network: { ranges: string[]; ports: number[] }): number {
  const scope = parseNetworkScope({ ranges: network.ranges, ports: network.ports });
  return scope.ok ? scope.value.addressCount : 0;
}
