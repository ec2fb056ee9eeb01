import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ScannerEntity } from './scanner.entity';

// Serialises creation of the default scanner between replicas starting together.
const DEFAULT_SCANNER_LOCK_KEY = 7_341_103;

@Injectable()
export class ScannersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get scanners() {
    return this.dataSource.getRepository(ScannerEntity);
  }

  insert(scanner: Pick<ScannerEntity, 'name' | 'isDefault' | 'tokenHash'>): Promise<ScannerEntity> {
    return this.scanners.save(this.scanners.create(scanner));
  }

  findByTokenHash(tokenHash: string): Promise<ScannerEntity | null> {
    return this.scanners.findOneBy({ tokenHash });
  }

  findDefault(): Promise<ScannerEntity | null> {
    return this.scanners.findOneBy({ isDefault: true });
  }

  /** Inserts the default scanner when the table is empty; a no-op otherwise. */
  async insertDefaultIfNone(scanner: Pick<ScannerEntity, 'name' | 'tokenHash'>): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [DEFAULT_SCANNER_LOCK_KEY]);
      if ((await manager.count(ScannerEntity)) > 0) return false;
      await manager.insert(ScannerEntity, { ...scanner, isDefault: true });
      return true;
    });
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.scanners.update({ id }, { lastUsedAt: at });
  }
}
