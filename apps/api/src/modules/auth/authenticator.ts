import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Passport } from 'passport';
import { Strategy as CustomStrategy } from 'passport-custom';
import { Strategy as JwtStrategy } from 'passport-jwt';
import { bearerToken, tokenKind, type TokenKind } from '../../common/auth/bearer-token';
import type { Principal, UserPrincipal } from '../../common/auth/principal';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { ScannersService } from '../scanners/scanners.service';
import { UsersRepository } from '../users/users.repository';
import { JWT_ALGORITHM, JWT_AUDIENCE, JWT_ISSUER, type JwtClaims } from './jwt-claims';

type Done = (error: unknown, principal?: Principal | false) => void;

const STRATEGY_OF: Record<TokenKind, string> = { jwt: 'jwt', 'api-key': 'api-key', scanner: 'scanner-token' };

/**
 * Turns a bearer token into a principal, or null. Each application owns its own Passport
 * instance (see docs/decisions/0001-per-application-passport.md), and the token's prefix picks
 * the one strategy that can accept it.
 */
@Injectable()
export class Authenticator {
  private readonly passport = new Passport();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly users: UsersRepository,
    private readonly apiKeys: ApiKeysService,
    private readonly scanners: ScannersService,
    private readonly clock: Clock,
  ) {
    this.passport.use(
      'jwt',
      new JwtStrategy(
        {
          jwtFromRequest: (req: Request) => bearerToken(req),
          secretOrKey: config.jwtSecret,
          algorithms: [JWT_ALGORITHM],
          issuer: JWT_ISSUER,
          audience: JWT_AUDIENCE,
          // Checked in userForJwt() against the injectable clock instead of the system clock.
          ignoreExpiration: true,
        },
        (claims: JwtClaims, done: Done) => settle(this.userForJwt(claims), done),
      ),
    );
    this.passport.use('api-key', new CustomStrategy((req: Request, done: Done) => settle(this.userForApiKey(req), done)));
    this.passport.use('scanner-token', new CustomStrategy((req: Request, done: Done) => settle(this.scannerForToken(req), done)));
  }

  authenticate(req: Request, res: Response): Promise<Principal | null> {
    const token = bearerToken(req);
    if (token === null) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      const middleware = this.passport.authenticate(
        STRATEGY_OF[tokenKind(token)],
        { session: false },
        (error: unknown, principal?: Principal | false) => {
          if (error) reject(error instanceof Error ? error : new Error('Authentication failed.', { cause: error }));
          else resolve(principal || null);
        },
      ) as (req: Request, res: Response, next: () => void) => void;
      middleware(req, res, () => resolve(null));
    });
  }

  private async userForJwt(claims: JwtClaims): Promise<UserPrincipal | null> {
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= this.clock.now().getTime()) return null;
    // Read fresh on every request: a disabled, deleted or demoted user loses access at once.
    const user = await this.users.findById(claims.sub);
    if (!user || user.disabled) return null;
    return { kind: 'user', userId: user.id, email: user.email, role: user.role, via: 'jwt' };
  }

  private async userForApiKey(req: Request): Promise<UserPrincipal | null> {
    const owner = await this.apiKeys.authenticate(bearerToken(req) ?? '');
    return owner ? { kind: 'user', userId: owner.id, email: owner.email, role: owner.role, via: 'api-key' } : null;
  }

  private async scannerForToken(req: Request): Promise<Principal | null> {
    const scanner = await this.scanners.authenticate(bearerToken(req) ?? '');
    return scanner ? { kind: 'scanner', scannerId: scanner.id } : null;
  }
}

function settle(result: Promise<Principal | null>, done: Done): void {
  result.then(
    (principal) => done(null, principal ?? false),
    (error: unknown) => done(error),
  );
}
