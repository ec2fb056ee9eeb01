import { type DynamicModule, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CountCache } from './count-cache';
import { DatabaseHealth } from './database-health';
import { ForgetAfterWrites } from './forget-after-writes.interceptor';
import { DatabaseNotifications } from './notifications';
import { dataSourceOptions } from './data-source-options';
import { runMigrationsUnderLock } from './migrate';
import { TableUpkeep } from './table-upkeep';
import { readTimestampsQuickly } from './timestamps';

@Module({})
export class DatabaseModule {
  /** Connects, then applies pending migrations under the migration lock before anything else runs. */
  static forRoot(databaseUrl: string, statementTimeoutMs?: number): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => dataSourceOptions(databaseUrl, statementTimeoutMs),
          dataSourceFactory: async (options) => {
            readTimestampsQuickly();
            const dataSource = await new DataSource(options!).initialize();
            await runMigrationsUnderLock(dataSource);
            return dataSource;
          },
        }),
      ],
      providers: [
        DatabaseHealth,
        CountCache,
        DatabaseNotifications,
        TableUpkeep,
        // Global: a write request, whichever module serves it, may change what the caches hold.
        { provide: APP_INTERCEPTOR, useClass: ForgetAfterWrites },
      ],
      exports: [DatabaseHealth, CountCache, DatabaseNotifications, TableUpkeep],
    };
  }
}
