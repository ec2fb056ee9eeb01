import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SCANNER_DEFAULT_LOCK_KEY } from '../../database/advisory-lock-keys';
import { isUniqueViolation } from '../../database/errors';
import type { Transaction } from '../../database/transaction';
import { ScannerEntity } from './scanner.entity';

export class DuplicateScannerNameError extends Error {}

export type ScannerChanges = Partial<Pick<ScannerEntity, 'name' | 'scanCronExpression' | 'scanConcurrency' | 'tokenHash'>>;

@Injectable()
export class ScannersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private scanners(transaction?: Transaction) {
    return (transaction ?? this.dataSource.manager).getRepository(ScannerEntity);
  }

  /** Runs `work` in one transaction holding the scanner lock; the default-scanner check runs at its commit. */
  inTransaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (transaction) => {
      await transaction.query('SELECT pg_advisory_xact_lock($1)', [SCANNER_DEFAULT_LOCK_KEY]);
      return work(transaction);
    });
  }

  listAll(): Promise<ScannerEntity[]> {
    return this.scanners().find({ order: { name: 'ASC' } });
  }

  findById(id: string, transaction?: Transaction): Promise<ScannerEntity | null> {
    return this.scanners(transaction).findOneBy({ id });
  }

  findByTokenHash(tokenHash: string): Promise<ScannerEntity | null> {
    return this.scanners().findOneBy({ tokenHash });
  }

  findDefault(transaction?: Transaction): Promise<ScannerEntity | null> {
    return this.scanners(transaction).findOneBy({ isDefault: true });
  }

  count(transaction?: Transaction): Promise<number> {
    return this.scanners(transaction).count();
  }

  /** @throws DuplicateScannerNameError */
  async insert(
    scanner: Pick<ScannerEntity, 'name' | 'isDefault' | 'tokenHash'> & ScannerChanges,
    transaction?: Transaction,
  ): Promise<ScannerEntity> {
    try {
      const repository = this.scanners(transaction);
      return await repository.save(repository.create(scanner));
    } catch (error) {
      if (isUniqueViolation(error, 'scanners_name_key')) throw new DuplicateScannerNameError();
      throw error;
    }
  }

  /** @throws DuplicateScannerNameError */
  async update(id: string, changes: ScannerChanges, transaction?: Transaction): Promise<ScannerEntity | null> {
    try {
      if (Object.keys(changes).length > 0) await this.scanners(transaction).update({ id }, changes);
      return await this.scanners(transaction).findOneBy({ id });
    } catch (error) {
      if (isUniqueViolation(error, 'scanners_name_key')) throw new DuplicateScannerNameError();
      throw error;
    }
  }

  async delete(id: string, transaction: Transaction): Promise<void> {
    await this.scanners(transaction).delete({ id });
  }

  /** Moves the default flag in two steps; the deferred check sees exactly one default at commit. */
  async makeDefault(id: string, transaction: Transaction): Promise<void> {
    await transaction.query('UPDATE scanners SET is_default = false WHERE is_default AND id <> $1', [id]);
    await transaction.query('UPDATE scanners SET is_default = true WHERE id = $1', [id]);
  }

  /** Inserts the default scanner when the table is empty; a no-op otherwise. */
  insertDefaultIfNone(scanner: Pick<ScannerEntity, 'name' | 'tokenHash'>): Promise<boolean> {
    return this.inTransaction(async (transaction) => {
      if ((await this.count(transaction)) > 0) return false;
      await this.insert({ ...scanner, isDefault: true }, transaction);
      return true;
    });
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.scanners().update({ id }, { lastUsedAt: at });
  }
}
