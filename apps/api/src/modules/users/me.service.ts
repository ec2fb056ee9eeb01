import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { hashPassword, verifyPassword } from '../../common/auth/secrets';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { LoginThrottle } from '../sessions/login-throttle';
import { SessionsRepository } from '../sessions/sessions.repository';
import type { UpdateMeDto } from './me.dto';
import type { UserEntity } from './user.entity';
import { type UserChanges, UsersRepository } from './users.repository';
import { changedFields } from './user-audit';

@Injectable()
export class MeService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly throttle: LoginThrottle,
    private readonly audit: AuditService,
  ) {}

  async getMe(userId: string): Promise<UserEntity> {
    const user = await this.users.findById(userId);
    // The guard has just loaded this user; only a concurrent delete gets here.
    if (!user) throw new NotFoundException('User not found.');
    return user;
  }

  /**
   * Replaces the caller's subscriptions, repeats already kept once. None means every endpoint;
   * some mean only endpoints sharing at least one of them, for alerts and the calendar alike.
   */
  async replaceTagSubscriptions(userId: string, subscriptions: string[]): Promise<string[]> {
    await this.getMe(userId);
    await this.users.update(userId, { tagSubscriptions: subscriptions });
    return subscriptions;
  }

  /**
   * A new password needs the current one, checked under the same failure limits as sign-in, and
   * ends every session of the user, the caller's too: they sign in again with the new password.
   */
  async updateMe(userId: string, dto: UpdateMeDto, context: { actor: ActorContext; address: string }): Promise<UserEntity> {
    const user = await this.getMe(userId);
    const changes: UserChanges = {};
    if (dto.name !== undefined) changes.name = dto.name;
    if (dto.notify !== undefined) changes.notify = dto.notify;
    if (dto.calendarToken === null) changes.calendarTokenHash = null;
    if (dto.password !== undefined) {
      const currentMatches = await this.throttle.guard(
        { account: user.email, address: context.address },
        async () => user.passwordHash !== null && (await verifyPassword(dto.currentPassword ?? '', user.passwordHash)),
      );
      if (!currentMatches) throw new BadRequestException('currentPassword is not the current password');
      changes.passwordHash = await hashPassword(dto.password);
    }
    const updated = (await this.users.update(userId, changes)) ?? user;
    const audited = changedFields(user, { passwordHash: changes.passwordHash });
    if (changes.passwordHash !== undefined) audited.sessionsEnded = await this.sessions.deleteAllForUser(userId);
    if (Object.keys(audited).length > 0) {
      await this.audit.record(context.actor, { action: 'user:update', targetType: 'user', targetId: userId, details: audited });
    }
    return updated;
  }
}
