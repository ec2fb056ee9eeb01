import { ForbiddenException, Injectable, Logger } from '@nestjs/common';
import type { Role } from '../../common/auth/permissions';
import { type ActorContext, AuditService } from '../audit/audit.service';
import type { UserEntity } from '../users/user.entity';
import { DuplicateEmailError, DuplicateOidcIdentityError, UsersRepository } from '../users/users.repository';
import type { VerifiedIdentity } from './oidc-flow.service';
import { claimValue, mappedRole } from './oidc-settings';

// Enough to keep anything but an address out of the e-mail column; the provider vouches for the rest.
const EMAIL = /^[^\s@]+@[^\s@]+$/;

const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** The claims sign-in reads, under the names the settings give them. */
interface Profile {
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  /** The role the claims grant (roleClaim ∩ roleMapping, else defaultRole); null: none. */
  role: Role | null;
}

/**
 * Who a verified identity is in Certkeeper: the user linked to (issuer, subject); else the user
 * with the same e-mail when the provider says the address is verified (`email_verified: true`,
 * nothing else), who is then linked; else a new user with the mapped role. Keeps e-mail, name and
 * (with roleClaim) role in step with the provider at every sign-in.
 */
@Injectable()
export class OidcSignInService {
  private readonly logger = new Logger('OIDC');

  constructor(
    private readonly users: UsersRepository,
    private readonly audit: AuditService,
  ) {}

  async resolveUser(identity: VerifiedIdentity, requestId: string | null): Promise<UserEntity> {
    const actor: ActorContext = { actor: `oidc:${identity.issuer}`, actorId: null, requestId };
    const profile = readProfile(identity);
    let user = await this.users.findByOidcIdentity(identity.issuer, identity.subject);
    if (user === null && profile.email !== null) user = await this.matchByEmail(identity, profile, actor);
    if (user === null) return this.provision(identity, profile, actor);
    if (user.disabled) throw new ForbiddenException('This account is disabled.');
    await this.syncProfile(user, profile);
    if (identity.settings.roleClaim !== null) await this.syncRole(user, profile.role, actor);
    return (await this.users.findById(user.id)) ?? user;
  }

  /**
   * The user with the verified address, linked now (audit `user:oidc_link`); null when none. Only an
   * administrator sets an address (docs/api-contract.md section 2), so the account matched is one
   * an administrator vouched for, not one whose holder typed a colleague's address.
   */
  private async matchByEmail(identity: VerifiedIdentity, profile: Profile, actor: ActorContext): Promise<UserEntity | null> {
    const existing = await this.users.findByEmail(profile.email as string);
    if (existing === null) return null;
    if (!profile.emailVerified) {
      throw new ForbiddenException(
        'An account with this e-mail address exists, but the identity provider does not confirm that the address is verified ' +
          '(email_verified), so the sign-in is not linked to it.',
      );
    }
    if (existing.disabled) throw new ForbiddenException('This account is disabled.');
    if (existing.oidcSubject !== null || !(await this.link(existing.id, identity))) {
      throw new ForbiddenException('The account with this e-mail address is linked to another identity at the provider.');
    }
    await this.audit.record(actor, {
      action: 'user:oidc_link',
      targetType: 'user',
      targetId: existing.id,
      details: { email: existing.email, issuer: identity.issuer, subject: identity.subject },
    });
    return existing;
  }

  private async link(userId: string, identity: VerifiedIdentity): Promise<boolean> {
    try {
      return await this.users.linkOidcIdentity(userId, identity.issuer, identity.subject);
    } catch (error) {
      if (error instanceof DuplicateOidcIdentityError) return false;
      throw error;
    }
  }

  private async provision(identity: VerifiedIdentity, profile: Profile, actor: ActorContext): Promise<UserEntity> {
    if (profile.role === null) {
      throw new ForbiddenException('The identity provider grants no Certkeeper role to this account (no role mapping applies).');
    }
    if (profile.email === null) {
      throw new ForbiddenException(`The identity provider sent no e-mail address (claim "${identity.settings.emailClaim}").`);
    }
    try {
      const user = await this.users.insert({
        email: profile.email,
        name: profile.name ?? '',
        role: profile.role,
        passwordHash: null,
        notify: true,
        oidcIssuer: identity.issuer,
        oidcSubject: identity.subject,
      });
      await this.audit.record(actor, {
        action: 'user:create',
        targetType: 'user',
        targetId: user.id,
        details: { email: user.email, name: user.name, role: user.role, via: 'oidc', issuer: identity.issuer, subject: identity.subject },
      });
      return user;
    } catch (error) {
      if (error instanceof DuplicateEmailError) {
        // Taken between the look-up and the insert, or by an unverified match refused above.
        throw new ForbiddenException('An account with this e-mail address already exists.');
      }
      if (error instanceof DuplicateOidcIdentityError) {
        // A concurrent first sign-in of the same identity created the user.
        const user = await this.users.findByOidcIdentity(identity.issuer, identity.subject);
        if (user !== null) return user;
      }
      throw error;
    }
  }

  /** E-mail and name follow the provider; an address another user holds is not taken (the old one stays). */
  private async syncProfile(user: UserEntity, profile: Profile): Promise<void> {
    const changes: { email?: string; name?: string } = {};
    if (profile.name !== null && profile.name !== user.name) changes.name = profile.name;
    if (profile.email !== null && profile.email !== user.email) {
      const holder = await this.users.findByEmail(profile.email);
      if (holder === null) changes.email = profile.email;
      else this.logger.warn(`Kept the e-mail address of user ${user.id}: the provider's new address belongs to another user.`);
    }
    try {
      await this.users.update(user.id, changes);
    } catch (error) {
      if (!(error instanceof DuplicateEmailError)) throw error;
      if (changes.name !== undefined) await this.users.update(user.id, { name: changes.name });
    }
  }

  /**
   * With roleClaim set the provider decides the role at every sign-in; no role at all refuses the
   * sign-in (403). The last enabled administrator is never demoted: they keep their role.
   */
  private async syncRole(user: UserEntity, role: Role | null, actor: ActorContext): Promise<void> {
    await this.users.withAdminChangeLock(async (manager) => {
      const current = await this.users.findById(user.id, manager);
      if (current === null) throw new ForbiddenException('This account no longer exists.');
      const wouldDemoteAdmin = current.role === 'admin' && !current.disabled && (role === null || ROLE_RANK[role] < ROLE_RANK.admin);
      if (wouldDemoteAdmin && (await this.users.countEnabledAdmins(manager)) <= 1) {
        this.logger.warn(`Kept the administrator role of user ${current.id}: it is the last enabled administrator.`);
        return;
      }
      if (role === null) {
        throw new ForbiddenException('The identity provider no longer grants this account a Certkeeper role (no role mapping applies).');
      }
      if (role === current.role) return;
      await this.users.update(current.id, { role }, manager);
      await this.audit.record(
        actor,
        { action: 'user:update', targetType: 'user', targetId: current.id, details: { role, previousRole: current.role, via: 'oidc' } },
        manager,
      );
    });
  }
}

function readProfile(identity: VerifiedIdentity): Profile {
  const { claims, settings } = identity;
  const email = claimValue(claims, settings.emailClaim);
  const name = claimValue(claims, settings.nameClaim);
  const normalisedEmail = typeof email === 'string' && email.length <= 320 && EMAIL.test(email.trim()) ? email.trim().toLowerCase() : null;
  const mapped = settings.roleClaim === null ? null : mappedRole(claimValue(claims, settings.roleClaim), settings.roleMapping);
  return {
    email: normalisedEmail,
    emailVerified: claims.email_verified === true,
    name: typeof name === 'string' ? name.slice(0, 200) : null,
    role: mapped ?? settings.defaultRole,
  };
}
