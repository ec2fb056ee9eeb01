import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import type { Transaction } from '../../database/transaction';
import { DiscoveryNetworkEntity } from './network.entity';
import { DiscoverySweepReportEntity } from './sweep-report.entity';
import { DiscoverySweepEntity, type SweepTrigger } from './sweep.entity';

export interface SweepProgressUpdate {
  addressesProbed: number;
  servicesFound: number;
  at: Date;
  /** Set on the last report: how the sweep ended. */
  finish?: { status: 'completed' | 'failed'; error: string | null };
}

@Injectable()
export class SweepsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private sweeps(transaction?: Transaction) {
    return (transaction ?? this.dataSource.manager).getRepository(DiscoverySweepEntity);
  }

  inTransaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  findById(id: string, transaction?: Transaction): Promise<DiscoverySweepEntity | null> {
    return this.sweeps(transaction).findOneBy({ id });
  }

  /** The sweep row, locked until commit: reports, claims and the deadline never interleave on one sweep. */
  async lockById(id: string, transaction: Transaction): Promise<DiscoverySweepEntity | null> {
    return this.sweeps(transaction).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  networkExists(id: string): Promise<boolean> {
    return this.dataSource.getRepository(DiscoveryNetworkEntity).existsBy({ id });
  }

  /** The network row, locked against a concurrent delete or change until commit. */
  lockNetwork(id: string, transaction: Transaction): Promise<DiscoveryNetworkEntity | null> {
    return transaction.getRepository(DiscoveryNetworkEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  async listForNetwork(
    networkId: string,
    window: { limit: number; offset: number },
  ): Promise<{ rows: DiscoverySweepEntity[]; total: number }> {
    const [rows, total] = await this.sweeps().findAndCount({
      where: { networkId },
      order: { requestedAt: 'DESC', id: 'DESC' },
      take: window.limit,
      skip: window.offset,
    });
    return { rows, total };
  }

  /**
   * Queues a sweep unless the network already has one queued or running (the partial unique
   * index decides, so two replicas or a cron tick racing a request cannot both queue one).
   */
  async queue(
    sweep: { networkId: string; scannerId: string; trigger: SweepTrigger; addressesTotal: number; requestedAt: Date },
    transaction: Transaction,
  ): Promise<DiscoverySweepEntity | null> {
    const rows = await transaction.query<{ id: string }[]>(
      `INSERT INTO discovery_sweeps (network_id, scanner_id, trigger, addresses_total, requested_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (network_id) WHERE status IN ('queued', 'running') DO NOTHING
       RETURNING id`,
      [sweep.networkId, sweep.scannerId, sweep.trigger, sweep.addressesTotal, sweep.requestedAt],
    );
    return rows.length === 0 ? null : this.findById(rows[0].id, transaction);
  }

  /** Queued sweeps for a scanner's agent, oldest request first, with their network's current ranges and ports. */
  queuedFor(scannerId: string): Promise<{ sweepId: string; networkId: string; ranges: string[]; ports: number[] }[]> {
    return this.dataSource.query(
      `SELECT s.id AS "sweepId", s.network_id AS "networkId", n.ranges, n.ports
         FROM discovery_sweeps s JOIN discovery_networks n ON n.id = s.network_id
        WHERE s.scanner_id = $1 AND s.status = 'queued'
        ORDER BY s.requested_at, s.id`,
      [scannerId],
    );
  }

  async start(
    id: string,
    scope: { ranges: string[]; ports: number[]; addressesTotal: number },
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await this.sweeps(transaction).update(
      { id },
      {
        status: 'running',
        startedAt: at,
        lastReportAt: at,
        ranges: scope.ranges,
        ports: scope.ports,
        addressesTotal: scope.addressesTotal,
      },
    );
  }

  async recordReport(reportId: string, sweepId: string, at: Date, transaction: Transaction): Promise<void> {
    await transaction.getRepository(DiscoverySweepReportEntity).insert({ reportId, sweepId, receivedAt: at });
  }

  /** Which of these report ids were applied before, to tell a retried report from a late one. */
  async knownReports(reportIds: string[], transaction?: Transaction): Promise<Set<string>> {
    if (reportIds.length === 0) return new Set();
    const rows = await (transaction ?? this.dataSource.manager)
      .getRepository(DiscoverySweepReportEntity)
      .findBy({ reportId: In(reportIds) });
    return new Set(rows.map((row) => row.reportId));
  }

  /** Progress never moves backwards: a late report cannot undo a later one. */
  async applyProgress(sweep: DiscoverySweepEntity, update: SweepProgressUpdate, transaction: Transaction): Promise<void> {
    await this.sweeps(transaction).update(
      { id: sweep.id },
      {
        addressesProbed: Math.min(sweep.addressesTotal, Math.max(sweep.addressesProbed, update.addressesProbed)),
        servicesFound: sweep.servicesFound + update.servicesFound,
        lastReportAt: update.at,
        ...(update.finish ? { status: update.finish.status, error: update.finish.error, finishedAt: update.at } : {}),
      },
    );
    if (update.finish?.status === 'completed') {
      await transaction.getRepository(DiscoveryNetworkEntity).update({ id: sweep.networkId }, { lastSweepAt: update.at });
    }
  }

  /** Fails the queued or running sweeps the predicate picks; returns how many. */
  async failActive(
    where: { networkId?: string; orphaned?: boolean; quietSince?: Date },
    error: string,
    at: Date,
    transaction?: Transaction,
  ) {
    const conditions = [`status IN ('queued', 'running')`];
    const parameters: unknown[] = [error, at];
    if (where.networkId) conditions.push(`network_id = $${parameters.push(where.networkId)}`);
    if (where.orphaned) conditions.push('scanner_id IS NULL');
    if (where.quietSince) conditions.push(`status = 'running' AND last_report_at < $${parameters.push(where.quietSince)}`);
    const [, count] = await (transaction ?? this.dataSource.manager).query<[unknown[], number]>(
      `UPDATE discovery_sweeps SET status = 'failed', error = $1, finished_at = $2 WHERE ${conditions.join(' AND ')}`,
      parameters,
    );
    return count;
  }

  /** Queued sweeps follow their network to a newly assigned scanner; a running one stays with the agent running it. */
  async reassignQueued(networkId: string, scannerId: string | null, transaction: Transaction): Promise<void> {
    await this.sweeps(transaction).update({ networkId, status: 'queued' }, { scannerId });
  }

  networksOf(scannerId: string): Promise<Pick<DiscoveryNetworkEntity, 'ranges'>[]> {
    return this.dataSource
      .getRepository(DiscoveryNetworkEntity)
      .find({ select: ['ranges'], where: { scannerId, enabled: true }, order: { name: 'ASC' } });
  }

  /** Enabled networks with a scanner, for the scheduler: it decides which cron slots are due. */
  schedulable(): Promise<
    Pick<DiscoveryNetworkEntity, 'id' | 'scannerId' | 'ranges' | 'ports' | 'scanCronExpression' | 'createdAt' | 'lastScheduledAt'>[]
  > {
    return this.dataSource.getRepository(DiscoveryNetworkEntity).find({
      select: ['id', 'scannerId', 'ranges', 'ports', 'scanCronExpression', 'createdAt', 'lastScheduledAt'],
      where: { enabled: true },
    });
  }

  /**
   * Marks a cron slot as handled, once: false when another replica (or an earlier tick) got there
   * first, so each slot queues at most one sweep however many replicas run the scheduler.
   */
  async claimSlot(networkId: string, slot: Date, now: Date, transaction: Transaction): Promise<boolean> {
    // Set to now rather than to the slot: after a long outage the missed slots make one sweep, not one each.
    const [, count] = await transaction.query<[unknown[], number]>(
      `UPDATE discovery_networks SET last_scheduled_at = $3
        WHERE id = $1 AND enabled AND scanner_id IS NOT NULL AND (last_scheduled_at IS NULL OR last_scheduled_at < $2)`,
      [networkId, slot, now],
    );
    return count > 0;
  }
}
