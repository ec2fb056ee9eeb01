import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SettingEntity } from './setting.entity';

@Injectable()
export class SettingsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async read<T>(key: string): Promise<T | null> {
    const row = await this.dataSource.getRepository(SettingEntity).findOneBy({ key });
    return row ? (row.value as T) : null;
  }

  async write(key: string, value: unknown): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now()`,
      [key, JSON.stringify(value)],
    );
  }
}
