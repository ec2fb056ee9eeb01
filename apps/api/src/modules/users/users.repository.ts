import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ADMIN_CHANGE_LOCK_KEY } from '../../database/advisory-lock-keys';
import { isUniqueViolation } from '../../database/errors';
import type { Role } from '../../common/auth/permissions';
import { UserEntity } from './user.entity';

export interface NewUser {
  email: string;
  name: string;
  role: Role;
  passwordHash: string | null;
  notify: boolean;
  /** The identity at the OIDC provider of a user created by their first OIDC sign-in. */
  oidcIssuer?: string;
  oidcSubject?: string;
}

export type UserChanges = Partial<
  Pick<UserEntity, 'email' | 'name' | 'role' | 'passwordHash' | 'disabled' | 'notify' | 'calendarTokenHash' | 'tagSubscriptions'>
>;

export class DuplicateEmailError extends Error {}

/** Another user is already linked to this OIDC (issuer, subject). */
export class DuplicateOidcIdentityError extends Error {}

@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private users(manager: EntityManager = this.dataSource.manager) {
    return manager.getRepository(UserEntity);
  }

  listAll(): Promise<UserEntity[]> {
    return this.users().find({ order: { email: 'ASC' } });
  }

  findById(id: string, manager?: EntityManager): Promise<UserEntity | null> {
    return this.users(manager).findOneBy({ id });
  }

  findByOidcIdentity(issuer: string, subject: string): Promise<UserEntity | null> {
    return this.users().findOneBy({ oidcIssuer: issuer, oidcSubject: subject });
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users().findOneBy({ email });
  }

  countAll(): Promise<number> {
    return this.users().count();
  }

  /** @throws DuplicateEmailError, DuplicateOidcIdentityError */
  async insert(user: NewUser): Promise<UserEntity> {
    try {
      return await this.users().save(this.users().create(user));
    } catch (error) {
      throw uniquenessError(error);
    }
  }

  /** @throws DuplicateEmailError */
  async update(id: string, changes: UserChanges, manager?: EntityManager): Promise<UserEntity | null> {
    try {
      if (Object.keys(changes).length > 0) await this.users(manager).update({ id }, changes);
      return await this.users(manager).findOneBy({ id });
    } catch (error) {
      throw uniquenessError(error);
    }
  }

  /**
   * Links an OIDC identity to a user who has none yet; false when the user meanwhile got one.
   * @throws DuplicateOidcIdentityError
   */
  async linkOidcIdentity(userId: string, issuer: string, subject: string): Promise<boolean> {
    try {
      const result = await this.users()
        .createQueryBuilder()
        .update(UserEntity)
        .set({ oidcIssuer: issuer, oidcSubject: subject })
        .where('id = :userId AND oidc_subject IS NULL', { userId })
        .execute();
      return (result.affected ?? 0) > 0;
    } catch (error) {
      throw uniquenessError(error);
    }
  }

  /**
   * Replaces the password hash only while it is still `expected`: a password changed meanwhile
   * (another replica, another request) is never overwritten by a re-hash of the old one.
   */
  async replacePasswordHash(id: string, expected: string, next: string): Promise<void> {
    await this.users().update({ id, passwordHash: expected }, { passwordHash: next });
  }

  async delete(id: string, manager?: EntityManager): Promise<boolean> {
    const result = await this.users(manager).delete({ id });
    return (result.affected ?? 0) > 0;
  }

  countEnabledAdmins(manager?: EntityManager): Promise<number> {
    return this.users(manager).countBy({ role: 'admin', disabled: false });
  }

  /**
   * Runs `work` in a transaction that holds the administrator-change lock, so two concurrent
   * demotions cannot both see "another admin remains".
   */
  withAdminChangeLock<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [ADMIN_CHANGE_LOCK_KEY]);
      return work(manager);
    });
  }
}

function uniquenessError(error: unknown): unknown {
  if (isUniqueViolation(error, 'users_email_key')) return new DuplicateEmailError();
  if (isUniqueViolation(error, 'users_oidc_identity_key')) return new DuplicateOidcIdentityError();
  return error;
}
