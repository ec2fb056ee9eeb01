import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isUniqueViolation } from '../../database/errors';
import type { Transaction } from '../../database/transaction';
import { DiscoveryNetworkEntity } from './network.entity';

export class DuplicateNetworkNameError extends Error {}

export type NetworkChanges = Partial<
  Pick<DiscoveryNetworkEntity, 'name' | 'ranges' | 'ports' | 'scannerId' | 'scanCronExpression' | 'enabled'>
>;
export type NetworkRecord = Pick<DiscoveryNetworkEntity, 'name' | 'ranges' | 'ports' | 'scannerId' | 'scanCronExpression' | 'enabled'>;

@Injectable()
export class NetworksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private networks(transaction?: Transaction) {
    return (transaction ?? this.dataSource.manager).getRepository(DiscoveryNetworkEntity);
  }

  inTransaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  listAll(): Promise<DiscoveryNetworkEntity[]> {
    return this.networks().find({ order: { name: 'ASC', id: 'ASC' } });
  }

  findById(id: string, transaction?: Transaction): Promise<DiscoveryNetworkEntity | null> {
    return this.networks(transaction).findOneBy({ id });
  }

  /** @throws DuplicateNetworkNameError */
  async insert(
    record: NetworkRecord & Pick<DiscoveryNetworkEntity, 'createdAt'>,
    transaction: Transaction,
  ): Promise<DiscoveryNetworkEntity> {
    try {
      const repository = this.networks(transaction);
      return await repository.save(repository.create(record));
    } catch (error) {
      if (isUniqueViolation(error, 'discovery_networks_name_key')) throw new DuplicateNetworkNameError();
      throw error;
    }
  }

  /** @throws DuplicateNetworkNameError */
  async update(id: string, changes: NetworkChanges, transaction: Transaction): Promise<DiscoveryNetworkEntity | null> {
    try {
      if (Object.keys(changes).length > 0) await this.networks(transaction).update({ id }, changes);
      return await this.networks(transaction).findOneBy({ id });
    } catch (error) {
      if (isUniqueViolation(error, 'discovery_networks_name_key')) throw new DuplicateNetworkNameError();
      throw error;
    }
  }

  async delete(id: string, transaction: Transaction): Promise<DiscoveryNetworkEntity | null> {
    const network = await this.findById(id, transaction);
    if (network) await this.networks(transaction).delete({ id });
    return network;
  }

  /** Locks the scanner row until commit, so it cannot be deleted between this check and the write. */
  async scannerExists(id: string, transaction: Transaction): Promise<boolean> {
    const rows = await transaction.query<{ id: string }[]>('SELECT id FROM scanners WHERE id = $1 FOR KEY SHARE', [id]);
    return rows.length > 0;
  }

  async defaultScannerId(transaction: Transaction): Promise<string | null> {
    const rows = await transaction.query<{ id: string }[]>('SELECT id FROM scanners WHERE is_default FOR KEY SHARE');
    return rows[0]?.id ?? null;
  }
}
