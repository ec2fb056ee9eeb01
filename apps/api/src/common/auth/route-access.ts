import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Permission } from './permissions';
import type { ScannerPrincipal, UserPrincipal } from './principal';

/**
 * Every route declares exactly one access rule. The authentication guard refuses to serve a
 * route without one, and a test walks every route to prove it. A permission rule names one or
 * more permissions, all of which the caller's role must grant.
 */
export type RouteAccess =
  { kind: 'public' } | { kind: 'permission'; permissions: readonly [Permission, ...Permission[]] } | { kind: 'scanner' };

export const ROUTE_ACCESS = 'certkeeper:route-access';

const plainText = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

/** No Authorization header needed. Only the routes docs/api-contract.md section 2 lists as public. */
export function Public(): MethodDecorator & ClassDecorator {
  return SetMetadata(ROUTE_ACCESS, { kind: 'public' } satisfies RouteAccess);
}

/** A user token (JWT or API key) whose role grants `permission` and every one of `others`. */
export function RequirePermission(permission: Permission, ...others: Permission[]): MethodDecorator & ClassDecorator {
  const permissions = [permission, ...others] as const;
  const named = permissions.join(' or ');
  return applyDecorators(
    SetMetadata(ROUTE_ACCESS, { kind: 'permission', permissions } satisfies RouteAccess),
    ApiBearerAuth(),
    ApiUnauthorizedResponse(plainText('Missing, malformed or expired token.')),
    ApiForbiddenResponse(plainText(`The caller's role lacks ${named}, or the token is a scanner token.`)),
  );
}

/** A scanner token; the scanner protocol routes only. */
export function ScannerOnly(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(ROUTE_ACCESS, { kind: 'scanner' } satisfies RouteAccess),
    ApiBearerAuth(),
    ApiUnauthorizedResponse(plainText('Missing, malformed or revoked scanner token.')),
    ApiForbiddenResponse(plainText('The token is not a scanner token.')),
  );
}

/** The signed-in user on routes that require a user permission (the guard guarantees the kind). */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): UserPrincipal => {
  return ctx.switchToHttp().getRequest<Request>().user as UserPrincipal;
});

/** The calling scanner on scanner-only routes. */
export const CurrentScanner = createParamDecorator((_: unknown, ctx: ExecutionContext): ScannerPrincipal => {
  return ctx.switchToHttp().getRequest<Request>().user as ScannerPrincipal;
});
