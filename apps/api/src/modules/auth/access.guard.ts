import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Injectable,
  InternalServerErrorException,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard, AuthModuleOptions, type IAuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { bearerToken, tokenKind, type TokenKind } from '../../common/auth/bearer-token';
import { roleHasPermission } from '../../common/auth/permissions';
import type { Principal } from '../../common/auth/principal';
import { ROUTE_ACCESS, type RouteAccess } from '../../common/auth/route-access';
import { TokenStrategies } from './token-strategies';

/**
 * @nestjs/passport's guard for one strategy (the module's default strategy when `strategy` is
 * undefined), reporting "no principal" as null so that AccessGuard words the 401 itself.
 */
function quietAuthGuard(strategy?: string): new (options?: AuthModuleOptions) => IAuthGuard {
  return class extends AuthGuard(strategy) {
    override handleRequest<T>(error: unknown, principal: T | false): T | null {
      // Strategies fail with Errors (a database that is down); anything else is wrapped so it keeps its 500.
      if (error) throw error instanceof Error ? error : new Error('Authentication failed.', { cause: error });
      return principal || null;
    }
  };
}

/**
 * The global guard. Authentication failures are 401, a valid token without the route's
 * permission is 403 (docs/api-contract.md section 2). A route without a declared access rule is never
 * served: failing closed beats an accidentally public route.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  /** The token's prefix picks exactly one of this application's strategies; JWTs go to the default one. */
  private readonly guards: Record<TokenKind, IAuthGuard>;

  constructor(
    private readonly reflector: Reflector,
    strategies: TokenStrategies,
    options: AuthModuleOptions,
  ) {
    const JwtGuard = quietAuthGuard();
    const ApiKeyGuard = quietAuthGuard(strategies.names['api-key']);
    const ScannerGuard = quietAuthGuard(strategies.names.scanner);
    this.guards = { jwt: new JwtGuard(options), 'api-key': new ApiKeyGuard(options), scanner: new ScannerGuard(options) };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [context.getHandler(), context.getClass()]);
    if (!access) throw new InternalServerErrorException('Route declares no access rule.');
    if (access.kind === 'public') return true;

    const req = context.switchToHttp().getRequest<Request>();
    const token = bearerToken(req);
    if (token === null) throw new UnauthorizedException('Missing or malformed Authorization header; expected "Bearer <token>".');
    await this.guards[tokenKind(token)].canActivate(context);
    const principal = (req.user as Principal | null | undefined) ?? null;
    if (!principal) throw new UnauthorizedException('Invalid, expired or revoked token.');
    assertAllowed(access, principal);
    req.user = principal;
    return true;
  }
}

/** Throws the 403 a principal earns on a route; exported for its unit test. */
export function assertAllowed(access: RouteAccess, principal: Principal): void {
  if (access.kind === 'scanner') {
    if (principal.kind !== 'scanner') throw new ForbiddenException('This route accepts scanner tokens only.');
    return;
  }
  if (access.kind !== 'permission') return;
  if (principal.kind === 'scanner') throw new ForbiddenException('Scanner tokens are accepted only on /api/v1/scanner routes.');
  // Every permission the route names must hold; the refusal names the first one missing.
  const missing = access.permissions.find((permission) => !roleHasPermission(principal.role, permission));
  if (missing !== undefined) throw new ForbiddenException(`Your role (${principal.role}) lacks the ${missing} permission.`);
}
