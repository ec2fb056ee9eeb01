import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { checkOutConnection, type PooledConnection } from './pool';

@Injectable()
export class DatabaseHealth {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Whether `SELECT 1` succeeds within the deadline. Never throws. A probe past its deadline
   * destroys its connection instead of leaving it checked out: against a database that accepts
   * and never answers (a failover that black-holes the old address), a load balancer probing every
   * few seconds would otherwise hold the whole pool within a minute, and the API could not recover
   * when the database came back (docs/api-contract.md, health and database outages).
   */
  async isReachable(deadlineMs: number): Promise<boolean> {
    let held: PooledConnection | null = null;
    let settled = false;
    const giveBack = (error?: Error) => {
      held?.release(error);
      held = null;
    };
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), deadlineMs);
    });
    const probe = (async () => {
      const connection = await checkOutConnection(this.dataSource);
      held = connection;
      if (settled) throw new Error('the health probe is past its deadline');
      await connection.client.query('SELECT 1');
      giveBack();
      return true;
    })().catch((error: unknown) => {
      giveBack(error instanceof Error ? error : new Error(String(error)));
      return false;
    });
    try {
      return await Promise.race([probe, deadline]);
    } finally {
      settled = true;
      clearTimeout(timer);
      // Still waiting for an answer: the connection's state is unknown, so it is discarded.
      giveBack(new Error('the health probe is past its deadline'));
    }
  }
}
