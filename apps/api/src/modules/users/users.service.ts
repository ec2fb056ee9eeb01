import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { hashPassword, randomToken } from '../../common/auth/secrets';
import type { AppConfig } from '../../config/app-config';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { SessionsRepository } from '../sessions/sessions.repository';
import type { CreateUserDto, UpdateUserDto } from './users.dto';
import type { UserEntity } from './user.entity';
import { changedFields } from './user-audit';
import { DuplicateEmailError, type UserChanges, UsersRepository } from './users.repository';

const DEFAULT_ADMIN_EMAIL = 'admin@localhost';

@Injectable()
export class UsersService {
  private readonly logger = new Logger('Users');

  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly apiKeys: ApiKeysService,
    private readonly audit: AuditService,
  ) {}

  listUsers(): Promise<UserEntity[]> {
    return this.users.listAll();
  }

  async getUser(id: string): Promise<UserEntity> {
    const user = await this.users.findById(id);
    if (!user) throw new NotFoundException('User not found.');
    return user;
  }

  async createUser(dto: CreateUserDto, actor: ActorContext): Promise<UserEntity> {
    const passwordHash = dto.password === undefined ? null : await hashPassword(dto.password);
    try {
      const user = await this.users.insert({
        email: dto.email,
        name: dto.name ?? '',
        role: dto.role,
        passwordHash,
        notify: dto.notify ?? true,
      });
      await this.audit.record(actor, {
        action: 'user:create',
        targetType: 'user',
        targetId: user.id,
        details: { email: user.email, role: user.role, passwordSet: passwordHash !== null },
      });
      return user;
    } catch (error) {
      throw mapDuplicateEmail(error);
    }
  }

  /**
   * A new password or disabling the user ends every session they have, in the same transaction
   * as the change (docs/api-contract.md section 10); `revokeApiKeys` also deletes their API keys.
   */
  async updateUser(id: string, dto: UpdateUserDto, actor: ActorContext): Promise<UserEntity> {
    const changes: UserChanges = { email: dto.email, name: dto.name, role: dto.role, notify: dto.notify, disabled: dto.disabled };
    if (dto.password !== undefined) changes.passwordHash = dto.password === null ? null : await hashPassword(dto.password);
    const definedChanges = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as UserChanges;

    return this.users.withAdminChangeLock(async (transaction) => {
      const user = await this.users.findById(id);
      if (!user) throw new NotFoundException('User not found.');
      const staysEnabledAdmin = (definedChanges.role ?? user.role) === 'admin' && !(definedChanges.disabled ?? user.disabled);
      if (isEnabledAdmin(user) && !staysEnabledAdmin && (await this.users.countEnabledAdmins(transaction)) <= 1) {
        throw new ConflictException('This is the last enabled administrator: promote or enable another administrator first.');
      }
      let updated: UserEntity;
      try {
        updated = (await this.users.update(id, definedChanges, transaction)) as UserEntity;
      } catch (error) {
        throw mapDuplicateEmail(error);
      }
      const endsSessions = dto.password !== undefined || (dto.disabled === true && !user.disabled);
      const sessionsEnded = endsSessions ? await this.sessions.deleteAllForUser(id, transaction) : 0;
      const apiKeysRevoked = dto.revokeApiKeys === true ? await this.apiKeys.deleteAllForUser(id, transaction) : 0;
      await this.audit.record(
        actor,
        {
          action: 'user:update',
          targetType: 'user',
          targetId: id,
          details: { ...changedFields(user, definedChanges), sessionsEnded, apiKeysRevoked },
        },
        transaction,
      );
      return updated;
    });
  }

  async deleteUser(id: string, actor: ActorContext): Promise<void> {
    await this.users.withAdminChangeLock(async (transaction) => {
      const user = await this.users.findById(id);
      if (!user) throw new NotFoundException('User not found.');
      if (isEnabledAdmin(user) && (await this.users.countEnabledAdmins(transaction)) <= 1) {
        throw new ConflictException('This is the last enabled administrator: promote or enable another administrator first.');
      }
      await this.users.delete(id, transaction);
      await this.audit.record(
        actor,
        { action: 'user:delete', targetType: 'user', targetId: id, details: { email: user.email } },
        transaction,
      );
    });
  }

  /**
   * First start: with no users at all, create the administrator from ADMIN_EMAIL/ADMIN_PASSWORD,
   * or `admin@localhost` with a random password written to a file only the service's user can read
   * (never to a log line, which log aggregation would keep). Runs under the admin-change lock so
   * replicas starting together create one administrator.
   */
  async ensureFirstAdmin(configured: AppConfig['admin']): Promise<void> {
    await this.users.withAdminChangeLock(async () => {
      if ((await this.users.countAll()) > 0) return;
      const email = configured.email ?? DEFAULT_ADMIN_EMAIL;
      if (configured.password === null && configured.passwordFile === undefined)
        throw new Error('No ADMIN_PASSWORD and nowhere to write a generated one: the first administrator cannot be created.');
      const password = configured.password ?? randomToken(18);
      // Written before the account exists: a failure to write leaves no administrator nobody can sign in as.
      if (configured.password === null) await writeSecretFile(configured.passwordFile!, `${password}\n`);
      await this.users.insert({ email, name: 'Administrator', role: 'admin', passwordHash: await hashPassword(password), notify: true });
      if (configured.password !== null) {
        this.logger.warn(`Created the first administrator ${email} with the password from ADMIN_PASSWORD.`);
      } else {
        this.logger.warn(`Created the first administrator ${email}; its password is in ${configured.passwordFile}.`);
        process.stdout.write(
          `\n  First administrator: ${email}\n  Password file:       ${configured.passwordFile}\n` +
            `  (readable only by this service's user; sign in, change the password, then delete the file)\n\n`,
        );
      }
    });
  }
}

/** Creates or replaces `file` with mode 0600 from the start (no moment where others may read it). */
async function writeSecretFile(file: string, content: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await rm(file, { force: true });
  await writeFile(file, content, { mode: 0o600, flag: 'wx' });
}

function isEnabledAdmin(user: UserEntity): boolean {
  return user.role === 'admin' && !user.disabled;
}

function mapDuplicateEmail(error: unknown): unknown {
  return error instanceof DuplicateEmailError ? new ConflictException('A user with this e-mail address already exists.') : error;
}
