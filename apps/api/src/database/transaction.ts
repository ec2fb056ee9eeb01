import type { EntityManager } from 'typeorm';

/**
 * A unit of work that repositories accept so that several writes (a change and its audit
 * entry) commit together. Services pass it along without knowing it is TypeORM's.
 */
export type Transaction = EntityManager;
