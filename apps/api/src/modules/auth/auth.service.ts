import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { decoyPasswordHash, hashPassword, needsRehash, verifyPassword } from '../../common/auth/secrets';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { UsersRepository } from '../users/users.repository';
import type { LoginResponseDto } from './auth.dto';
import { JWT_ALGORITHM, JWT_AUDIENCE, JWT_ISSUER, type JwtClaims } from './jwt-claims';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersRepository,
    private readonly jwt: JwtService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Unknown e-mail, wrong password and disabled account all get the same answer, in the same time. */
  async login(email: string, password: string): Promise<LoginResponseDto> {
    const user = await this.users.findByEmail(email.trim().toLowerCase());
    const passwordMatches = await verifyPassword(password, user?.passwordHash ?? (await decoyPasswordHash()));
    if (!user || !user.passwordHash || !passwordMatches || user.disabled) {
      throw new UnauthorizedException('Invalid e-mail or password.');
    }
    // The one moment the password is known: bring a hash made at an older cost up to today's.
    if (needsRehash(user.passwordHash)) await this.users.replacePasswordHash(user.id, user.passwordHash, await hashPassword(password));
    const issuedAt = Math.floor(this.clock.now().getTime() / 1000);
    const claims: JwtClaims = { sub: user.id, iat: issuedAt, exp: issuedAt + this.config.jwtTtlSeconds };
    const token = await this.jwt.signAsync(claims, {
      secret: this.config.jwtSecret,
      algorithm: JWT_ALGORITHM,
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
    });
    return {
      token,
      expiresAt: new Date(claims.exp * 1000).toISOString(),
      user: { id: user.id, email: user.email, name: user.name, role: user.role },
    };
  }
}
