import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { hashPassword, verifyPassword } from '../../common/auth/secrets';
import type { UpdateMeDto } from './me.dto';
import type { UserEntity } from './user.entity';
import { DuplicateEmailError, type UserChanges, UsersRepository } from './users.repository';

@Injectable()
export class MeService {
  constructor(private readonly users: UsersRepository) {}

  async getMe(userId: string): Promise<UserEntity> {
    const user = await this.users.findById(userId);
    // The guard has just loaded this user; only a concurrent delete gets here.
    if (!user) throw new NotFoundException('User not found.');
    return user;
  }

  async updateMe(userId: string, dto: UpdateMeDto): Promise<UserEntity> {
    const user = await this.getMe(userId);
    const changes: UserChanges = {};
    if (dto.name !== undefined) changes.name = dto.name;
    if (dto.email !== undefined) changes.email = dto.email;
    if (dto.notify !== undefined) changes.notify = dto.notify;
    if (dto.calendarToken === null) changes.calendarTokenHash = null;
    if (dto.password !== undefined) {
      const currentMatches = user.passwordHash !== null && (await verifyPassword(dto.currentPassword ?? '', user.passwordHash));
      if (!currentMatches) throw new BadRequestException('currentPassword is not the current password');
      changes.passwordHash = await hashPassword(dto.password);
    }
    try {
      return (await this.users.update(userId, changes)) ?? user;
    } catch (error) {
      if (error instanceof DuplicateEmailError) throw new ConflictException('A user with this e-mail address already exists.');
      throw error;
    }
  }
}
