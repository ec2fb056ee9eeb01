import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** What the feed needs to know about the token's owner. */
export type CalendarOwner = Pick<UserEntity, 'id' | 'disabled' | 'tagSubscriptions'>;

/** The calendar token lives on the user row (`users.calendar_token_hash`, unique). */
@Injectable()
export class CalendarRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get users() {
    return this.dataSource.getRepository(UserEntity);
  }

  /** Replaces the user's token hash; false when the user does not exist. */
  async setTokenHash(userId: string, tokenHash: string): Promise<boolean> {
    const result = await this.users.update({ id: userId }, { calendarTokenHash: tokenHash });
    return (result.affected ?? 0) > 0;
  }

  /** The owner of a token hash, through the unique index. */
  findOwnerByTokenHash(tokenHash: string): Promise<CalendarOwner | null> {
    return this.users.findOne({
      select: { id: true, disabled: true, tagSubscriptions: true },
      where: { calendarTokenHash: tokenHash },
    });
  }
}
