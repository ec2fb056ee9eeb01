import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import type { UserEntity } from '../users/user.entity';
import { JWT_ALGORITHM, JWT_AUDIENCE, JWT_ISSUER, type JwtClaims } from './jwt-claims';
import type { SignInMethod } from './session.entity';
import { SessionsRepository } from './sessions.repository';

/** What every way of signing in answers: `POST /auth/login` and `POST /auth/oidc/exchange` alike. */
export interface SignedIn {
  token: string;
  expiresAt: string;
  user: { id: string; email: string; name: string; role: UserEntity['role'] };
}

/** Starts a session for a user whose identity has been established, and signs its JWT. */
@Injectable()
export class SessionIssuer {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly jwt: JwtService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async issue(user: UserEntity, method: SignInMethod): Promise<SignedIn> {
    const now = this.clock.now();
    const issuedAt = Math.floor(now.getTime() / 1000);
    const expiresAt = issuedAt + this.config.jwtTtlSeconds;
    const sessionId = await this.sessions.insert({ userId: user.id, method, createdAt: now, expiresAt: new Date(expiresAt * 1000) });
    const claims: JwtClaims = { sub: user.id, sid: sessionId, iat: issuedAt, exp: expiresAt };
    const token = await this.jwt.signAsync(claims, {
      secret: this.config.jwtSecret,
      algorithm: JWT_ALGORITHM,
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
    });
    return {
      token,
      expiresAt: new Date(expiresAt * 1000).toISOString(),
      user: { id: user.id, email: user.email, name: user.name, role: user.role },
    };
  }
}
