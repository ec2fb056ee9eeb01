/**
 * Every PostgreSQL advisory lock key the API takes, in one place. The values are a contract
 * between replicas: two versions running side by side during an upgrade must agree, so a key is
 * never renumbered or reused, only added. Tests that hold a lock as "another replica" import the
 * key from here.
 */

/** Whoever holds it migrates at start-up; the other replicas wait (session lock). */
export const MIGRATION_LOCK_KEY = 7_341_101;

/** Serialises changes that could remove the last enabled administrator (transaction lock). */
export const ADMIN_CHANGE_LOCK_KEY = 7_341_102;

/** Serialises creation of the default scanner and every move of the default flag (transaction lock). */
export const SCANNER_DEFAULT_LOCK_KEY = 7_341_103;

/** Serialises endpoint writes, so the duplicate check and the insert cannot interleave (transaction lock). */
export const ENDPOINT_WRITE_LOCK_KEY = 7_341_104;

/** Whoever holds it runs the alert job; another replica's run waits and then finds the work done (session lock). */
export const ALERT_JOB_LOCK_KEY = 7_341_105;

/**
 * One key per maintenance task (session try-lock: a second run while one is going is refused).
 * The numbers are the task's position in the original pipeline, 7_341_200 + index; a new task
 * takes the next free number, whatever its place in the pipeline.
 */
export const MAINTENANCE_TASK_LOCK_KEYS = {
  'refresh-root-stores': 7_341_200,
  'purge-history': 7_341_201,
  'prune-certificates': 7_341_202,
  'purge-alert-records': 7_341_203,
  'refresh-renewal-info': 7_341_204,
  'check-revocation': 7_341_205,
} as const;

export type MaintenanceTaskName = keyof typeof MAINTENANCE_TASK_LOCK_KEYS;

/**
 * Arrivals (transactions that store new certificates and evaluate their trust) hold it shared
 * until they commit; a full trust pass takes it exclusively for a moment before it reads, so it
 * sees every arrival that evaluated against an older pool (transaction lock).
 */
export const TRUST_ARRIVALS_LOCK_KEY = 7_341_300;

/** Serialises full trust passes across replicas (session lock). */
export const TRUST_FULL_PASS_LOCK_KEY = 7_341_301;
