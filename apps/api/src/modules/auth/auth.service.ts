import { BadRequestException, Injectable, UnauthorizedException } from '@nestjs/common';
import type { UserPrincipal } from '../../common/auth/principal';
import { decoyPasswordHash, hashPassword, needsRehash, verifyPassword } from '../../common/auth/secrets';
import { LoginThrottle } from '../sessions/login-throttle';
import { SessionIssuer, type SignedIn } from '../sessions/session-issuer';
import { SessionsRepository } from '../sessions/sessions.repository';
import { UsersRepository } from '../users/users.repository';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly issuer: SessionIssuer,
    private readonly throttle: LoginThrottle,
  ) {}

  /**
   * Unknown e-mail, wrong password and disabled account all get the same answer, in the same
   * time, and all count as failures of that e-mail and of the client's address (429 once spent).
   */
  async login(email: string, password: string, address: string): Promise<SignedIn> {
    const account = email.trim().toLowerCase();
    const user = await this.users.findByEmail(account);
    const accepted = await this.throttle.guard({ account, address }, async () => {
      const passwordMatches = await verifyPassword(password, user?.passwordHash ?? (await decoyPasswordHash()));
      return passwordMatches && user !== null && user.passwordHash !== null && !user.disabled;
    });
    if (!accepted || !user?.passwordHash) throw new UnauthorizedException('Invalid e-mail or password.');
    // The one moment the password is known: bring a hash made at an older cost up to today's.
    if (needsRehash(user.passwordHash)) await this.users.replacePasswordHash(user.id, user.passwordHash, await hashPassword(password));
    return this.issuer.issue(user, 'password');
  }

  /** Ends the caller's session: its JWT is refused from now on, on every replica. */
  async logout(caller: UserPrincipal): Promise<void> {
    if (caller.credential.kind !== 'session') {
      throw new BadRequestException(
        'Logout ends a signed-in session; an API key stops when you delete it (DELETE /api/v1/me/api-keys/{id}).',
      );
    }
    await this.sessions.delete(caller.credential.sessionId);
  }
}
