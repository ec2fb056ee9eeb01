import { ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { hashPassword, randomToken } from '../../common/auth/secrets';
import type { CreateUserDto, UpdateUserDto } from './users.dto';
import type { UserEntity } from './user.entity';
import { DuplicateEmailError, type UserChanges, UsersRepository } from './users.repository';

const DEFAULT_ADMIN_EMAIL = 'admin@localhost';

@Injectable()
export class UsersService {
  private readonly logger = new Logger('Users');

  constructor(private readonly users: UsersRepository) {}

  listUsers(): Promise<UserEntity[]> {
    return this.users.listAll();
  }

  async getUser(id: string): Promise<UserEntity> {
    const user = await this.users.findById(id);
    if (!user) throw new NotFoundException('User not found.');
    return user;
  }

  async createUser(dto: CreateUserDto): Promise<UserEntity> {
    const passwordHash = dto.password === undefined ? null : await hashPassword(dto.password);
    try {
      return await this.users.insert({ email: dto.email, name: dto.name ?? '', role: dto.role, passwordHash, notify: dto.notify ?? true });
    } catch (error) {
      throw mapDuplicateEmail(error);
    }
  }

  async updateUser(id: string, dto: UpdateUserDto): Promise<UserEntity> {
    const changes: UserChanges = { email: dto.email, name: dto.name, role: dto.role, notify: dto.notify, disabled: dto.disabled };
    if (dto.password !== undefined) changes.passwordHash = dto.password === null ? null : await hashPassword(dto.password);
    const definedChanges = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as UserChanges;

    return this.users.withAdminChangeLock(async (manager) => {
      const user = await this.users.findById(id);
      if (!user) throw new NotFoundException('User not found.');
      const staysEnabledAdmin = (definedChanges.role ?? user.role) === 'admin' && !(definedChanges.disabled ?? user.disabled);
      if (isEnabledAdmin(user) && !staysEnabledAdmin && (await this.users.countEnabledAdmins(manager)) <= 1) {
        throw new ConflictException('This is the last enabled administrator: promote or enable another administrator first.');
      }
      try {
        return (await this.users.update(id, definedChanges, manager)) as UserEntity;
      } catch (error) {
        throw mapDuplicateEmail(error);
      }
    });
  }

  async deleteUser(id: string): Promise<void> {
    await this.users.withAdminChangeLock(async (manager) => {
      const user = await this.users.findById(id);
      if (!user) throw new NotFoundException('User not found.');
      if (isEnabledAdmin(user) && (await this.users.countEnabledAdmins(manager)) <= 1) {
        throw new ConflictException('This is the last enabled administrator: promote or enable another administrator first.');
      }
      await this.users.delete(id, manager);
    });
  }

  /**
   * First start: with no users at all, create the administrator from ADMIN_EMAIL/ADMIN_PASSWORD,
   * or `admin@localhost` with a random password printed once. Runs under the admin-change lock so
   * replicas starting together create one administrator.
   */
  async ensureFirstAdmin(configured: { email: string | null; password: string | null }): Promise<void> {
    await this.users.withAdminChangeLock(async () => {
      if ((await this.users.countAll()) > 0) return;
      const email = configured.email ?? DEFAULT_ADMIN_EMAIL;
      const password = configured.password ?? randomToken(18);
      await this.users.insert({ email, name: 'Administrator', role: 'admin', passwordHash: await hashPassword(password), notify: true });
      if (configured.password) {
        this.logger.warn(`Created the first administrator ${email} with the password from ADMIN_PASSWORD.`);
      } else {
        // The one secret the service ever prints: the operator has no other way to learn it.
        this.logger.warn(`Created the first administrator. Sign in as ${email} with password ${password} and change it.`);
        process.stdout.write(
          `\n  First administrator: ${email}\n  Password:            ${password}\n  (shown once; change it after signing in)\n\n`,
        );
      }
    });
  }
}

function isEnabledAdmin(user: UserEntity): boolean {
  return user.role === 'admin' && !user.disabled;
}

function mapDuplicateEmail(error: unknown): unknown {
  return error instanceof DuplicateEmailError ? new ConflictException('A user with this e-mail address already exists.') : error;
}
