import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Injectable,
  InternalServerErrorException,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { bearerToken } from '../../common/auth/bearer-token';
import { roleHasPermission } from '../../common/auth/permissions';
import type { Principal } from '../../common/auth/principal';
import { ROUTE_ACCESS, type RouteAccess } from '../../common/auth/route-access';
import { Authenticator } from './authenticator';

/**
 * The global guard. Authentication failures are 401, a valid token without the route's
 * permission is 403 (SPEC, Authentication). A route without a declared access rule is never
 * served: failing closed beats an accidentally public route.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [context.getHandler(), context.getClass()]);
    if (!access) throw new InternalServerErrorException('Route declares no access rule.');
    if (access.kind === 'public') return true;

    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const principal = await this.authenticator.authenticate(req, http.getResponse<Response>());
    if (!principal) {
      throw new UnauthorizedException(
        bearerToken(req) === null
          ? 'Missing or malformed Authorization header; expected "Bearer <token>".'
          : 'Invalid, expired or revoked token.',
      );
    }
    assertAllowed(access, principal);
    req.user = principal;
    return true;
  }
}

function assertAllowed(access: RouteAccess, principal: Principal): void {
  if (access.kind === 'scanner') {
    if (principal.kind !== 'scanner') throw new ForbiddenException('This route accepts scanner tokens only.');
    return;
  }
  if (access.kind !== 'permission') return;
  if (principal.kind === 'scanner') throw new ForbiddenException('Scanner tokens are accepted only on /api/v1/scanner routes.');
  if (!roleHasPermission(principal.role, access.permission)) {
    throw new ForbiddenException(`Your role (${principal.role}) lacks the ${access.permission} permission.`);
  }
}
