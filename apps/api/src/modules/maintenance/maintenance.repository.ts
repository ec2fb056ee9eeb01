import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { heldAdvisoryLocks, withAdvisoryTryLock } from '../../database/advisory-lock';
import { MAINTENANCE_TASK_LOCK_KEYS, type MaintenanceTaskName } from '../../database/advisory-lock-keys';
import { MaintenanceRunEntity } from './maintenance-run.entity';

export type { MaintenanceTaskName };

@Injectable()
export class MaintenanceRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs `work` if no other run of this task holds its lock; null when one does (skipped). */
  withTaskLock<T>(task: MaintenanceTaskName, work: () => Promise<T>): Promise<T | null> {
    return withAdvisoryTryLock(this.dataSource, MAINTENANCE_TASK_LOCK_KEYS[task], work);
  }

  /** The tasks a run holds the lock of now, on any replica. */
  async runningTasks(): Promise<Set<MaintenanceTaskName>> {
    const names = Object.keys(MAINTENANCE_TASK_LOCK_KEYS) as MaintenanceTaskName[];
    const held = await heldAdvisoryLocks(
      this.dataSource,
      names.map((name) => MAINTENANCE_TASK_LOCK_KEYS[name]),
    );
    return new Set(names.filter((name) => held.has(MAINTENANCE_TASK_LOCK_KEYS[name])));
  }

  lastRuns(): Promise<MaintenanceRunEntity[]> {
    return this.dataSource.getRepository(MaintenanceRunEntity).find();
  }

  async recordRun(task: string, at: Date, outcome: string, counts: Record<string, number>): Promise<void> {
    await this.dataSource
      .getRepository(MaintenanceRunEntity)
      .upsert({ task, lastRunAt: at, lastOutcome: outcome, lastCounts: counts }, ['task']);
  }

  /**
   * Scan history, historical links and channel delivery logs older than the retention period. The
   * newest history row of each endpoint is kept whatever its age, so an endpoint never loses its
   * last observation.
   */
  async purgeHistory(before: Date): Promise<Record<string, number>> {
    return this.dataSource.transaction(async (manager) => {
      const history = await manager.query<[unknown[], number]>(
        `DELETE FROM scan_history h
          WHERE h.scanned_at < $1
            AND h.id <> (SELECT n.id FROM scan_history n WHERE n.endpoint_id = h.endpoint_id ORDER BY n.scanned_at DESC, n.id DESC LIMIT 1)`,
        [before],
      );
      const links = await manager.query<[unknown[], number]>(
        'DELETE FROM endpoint_certificates WHERE NOT is_current AND last_seen_at < $1',
        [before],
      );
      const profiles = await manager.query<[unknown[], number]>('DELETE FROM endpoint_tls_profile_history WHERE scanned_at < $1', [before]);
      // Notification channels' delivery logs: the story of each attempt, kept as long as scan history.
      await manager.query('DELETE FROM notification_channel_deliveries WHERE at < $1', [before]);
      return { scanHistory: history[1], historicalLinks: links[1], tlsProfileHistory: profiles[1] };
    });
  }

  /**
   * Certificates nothing references any more: no link, no anchor, no scan-history row, no
   * discovery-inbox row, and not the issuer of a certificate that stays (a chain's intermediates
   * are kept with their leaves).
   * Repeats, because removing a leaf can free its issuers.
   */
  async pruneCertificates(): Promise<Record<string, number>> {
    let pruned = 0;
    for (let round = 0; round < 10; round += 1) {
      const deleted = await this.dataSource.query<[unknown[], number]>(
        `DELETE FROM certificates c
          WHERE NOT EXISTS (SELECT 1 FROM endpoint_certificates l WHERE l.fingerprint = c.fingerprint)
            AND NOT EXISTS (SELECT 1 FROM root_store_anchors a WHERE a.fingerprint = c.fingerprint)
            AND NOT EXISTS (SELECT 1 FROM scan_history h WHERE h.fingerprint = c.fingerprint)
            AND NOT EXISTS (SELECT 1 FROM discovery_inbox d WHERE d.fingerprint = c.fingerprint)
            AND NOT EXISTS (
              SELECT 1 FROM certificates child
               WHERE child.fingerprint <> c.fingerprint
                 AND child.issuer_dn_hash = c.subject_dn_hash
                 AND (child.authority_key_id IS NULL OR c.subject_key_id IS NULL OR child.authority_key_id = c.subject_key_id))`,
      );
      pruned += deleted[1];
      if (deleted[1] === 0) break;
    }
    return { certificates: pruned };
  }

  /**
   * Dedup records of certificates no longer current anywhere: they can never alert again as they
   * are. A PagerDuty channel's records stay until its incident is resolved, since they are what
   * the resolve is sent for (docs/api-contract.md section 17); its resolutions then go with them.
   */
  async purgeAlertRecords(): Promise<Record<string, number>> {
    return this.dataSource.transaction(async (manager) => {
      const deleted = await manager.query<[unknown[], number]>(
        `DELETE FROM notification_deliveries r
          WHERE NOT EXISTS (SELECT 1 FROM endpoint_certificates l WHERE l.fingerprint = r.fingerprint AND l.is_current)
            AND NOT EXISTS (
              SELECT 1 FROM notification_channels c
               WHERE c.id = r.channel_id AND c.kind = 'pagerduty'
                 AND NOT EXISTS (SELECT 1 FROM pagerduty_resolutions p WHERE p.channel_id = r.channel_id AND p.fingerprint = r.fingerprint))`,
      );
      await manager.query(
        `DELETE FROM pagerduty_resolutions p
          WHERE NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.channel_id = p.channel_id AND d.fingerprint = p.fingerprint)`,
      );
      return { alertRecords: deleted[1] };
    });
  }
}
