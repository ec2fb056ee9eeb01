import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { createSecretKey } from 'node:crypto';
import passport from 'passport';
import { Strategy as CustomStrategy } from 'passport-custom';
import { Strategy as JwtStrategy } from 'passport-jwt';
import { bearerToken, type TokenKind } from '../../common/auth/bearer-token';
import type { Principal, ScannerPrincipal, UserPrincipal } from '../../common/auth/principal';
import { Clock } from '../../common/clock';
import { APP_CONFIG, APPLICATION_ID, type AppConfig } from '../../config/app-config';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { ScannersService } from '../scanners/scanners.service';
import { JWT_ALGORITHM, JWT_AUDIENCE, JWT_ISSUER, type JwtClaims } from '../sessions/jwt-claims';
import { SessionUserCache } from '../sessions/session-user-cache';
import { SessionsRepository } from '../sessions/sessions.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * This application's strategy of each token kind. Passport keeps strategies in one process-wide
 * registry, so each name carries the application's id: two applications in one process (tests,
 * tools) never answer each other's tokens (docs/decisions/0001-per-application-passport.md).
 */
export function strategyNames(applicationId: string): Record<TokenKind, string> {
  return { jwt: `jwt:${applicationId}`, 'api-key': `api-key:${applicationId}`, scanner: `scanner-token:${applicationId}` };
}

/**
 * Registers the three strategies under this application's names when the application starts, and
 * removes them when it shuts down. Each strategy turns a bearer token into a principal, or null.
 */
@Injectable()
export class TokenStrategies implements OnApplicationShutdown {
  readonly names: Record<TokenKind, string>;

  constructor(
    @Inject(APPLICATION_ID) applicationId: string,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly sessions: SessionsRepository,
    private readonly sessionUsers: SessionUserCache,
    private readonly apiKeys: ApiKeysService,
    private readonly scanners: ScannersService,
    private readonly clock: Clock,
  ) {
    this.names = strategyNames(applicationId);
    const userForJwt = (claims: JwtClaims) => this.userForJwt(claims);
    const userForApiKey = (req: Request) => this.userForApiKey(req);
    const scannerForToken = (req: Request) => this.scannerForToken(req);

    // The mixin registers each instance under its name as it is constructed.
    new (class extends PassportStrategy(JwtStrategy, this.names.jwt) {
      validate(claims: JwtClaims): Promise<UserPrincipal | null> {
        return userForJwt(claims);
      }
    })({
      jwtFromRequest: (req: Request) => bearerToken(req),
      // A KeyObject, not the string: given a string, jsonwebtoken first tries (and fails) to read it
      // as a public key on every request, a cost every authenticated request would pay. The key bytes are the same: the secret's UTF-8, as the signer uses.
      secretOrKey: createSecretKey(Buffer.from(config.jwtSecret, 'utf8')) as unknown as Buffer,
      algorithms: [JWT_ALGORITHM],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      // Checked in userForJwt() against the injectable clock instead of the system clock.
      ignoreExpiration: true,
    });
    new (class extends PassportStrategy(CustomStrategy, this.names['api-key']) {
      validate(req: Request): Promise<UserPrincipal | null> {
        return userForApiKey(req);
      }
    })();
    new (class extends PassportStrategy(CustomStrategy, this.names.scanner) {
      validate(req: Request): Promise<Principal | null> {
        return scannerForToken(req);
      }
    })();
  }

  onApplicationShutdown(): void {
    for (const name of Object.values(this.names)) passport.unuse(name);
  }

  private async userForJwt(claims: JwtClaims): Promise<UserPrincipal | null> {
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= this.clock.now().getTime()) return null;
    // A token without a session (made before sessions existed, or forged with a leaked secret but
    // no row) never counts: the session row is what logout and a password change delete.
    if (typeof claims.sid !== 'string' || !UUID.test(claims.sid) || typeof claims.sub !== 'string' || !UUID.test(claims.sub)) return null;
    // A disabled, deleted or demoted user loses access at once: the cache forgets on every such
    // change, on any replica (SessionUserCache).
    const user = await this.sessionUsers.lookup(claims.sid, claims.sub, () => this.sessions.findUserOfSession(claims.sid, claims.sub));
    if (!user || user.disabled) return null;
    return { kind: 'user', userId: user.id, email: user.email, role: user.role, credential: { kind: 'session', sessionId: claims.sid } };
  }

  private async userForApiKey(req: Request): Promise<UserPrincipal | null> {
    const found = await this.apiKeys.authenticate(bearerToken(req) ?? '');
    if (!found) return null;
    const { key, owner } = found;
    return {
      kind: 'user',
      userId: owner.id,
      email: owner.email,
      role: owner.role,
      credential: { kind: 'api-key', apiKeyId: key.id, expiresAt: key.expiresAt },
    };
  }

  private async scannerForToken(req: Request): Promise<ScannerPrincipal | null> {
    const scanner = await this.scanners.authenticate(bearerToken(req) ?? '');
    return scanner ? { kind: 'scanner', scannerId: scanner.id } : null;
  }
}
