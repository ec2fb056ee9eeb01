import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NotificationTemplateEntity } from './notification-template.entity';

@Injectable()
export class TemplatesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get templates() {
    return this.dataSource.getRepository(NotificationTemplateEntity);
  }

  listOverrides(): Promise<NotificationTemplateEntity[]> {
    return this.templates.find();
  }

  overridesOf(channel: string): Promise<NotificationTemplateEntity[]> {
    return this.templates.findBy({ channel });
  }

  findOverride(eventType: string, channel: string): Promise<NotificationTemplateEntity | null> {
    return this.templates.findOneBy({ eventType, channel });
  }

  async saveOverride(eventType: string, channel: string, subject: string, body: string): Promise<void> {
    await this.templates.upsert({ eventType, channel, subject, body }, ['eventType', 'channel']);
  }

  async deleteOverride(eventType: string, channel: string): Promise<void> {
    await this.templates.delete({ eventType, channel });
  }
}
