import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SettingsCache } from './settings-cache';
import { SettingEntity } from './setting.entity';

/** The settings documents by key, read through SettingsCache: the alert job and findings read them on every run. */
@Injectable()
export class SettingsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cache: SettingsCache,
  ) {}

  async read<T>(key: string): Promise<T | null> {
    return this.cache.read(key, async () => {
      const row = await this.dataSource.getRepository(SettingEntity).findOneBy({ key });
      return row ? (row.value as T) : null;
    });
  }

  async write(key: string, value: unknown): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now()`,
      [key, JSON.stringify(value)],
    );
    // Committed: the rest of this request reads it, not what was cached before.
    this.cache.forget();
  }
}
