import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from '../../common/auth/principal';
import type { ActorContext } from './audit.service';

/** The audit context of the current request: the signed-in user's e-mail or the scanner, and the request id. */
export const Actor = createParamDecorator((_: unknown, ctx: ExecutionContext): ActorContext => {
  const req = ctx.switchToHttp().getRequest<Request>();
  const principal = req.user as Principal | undefined;
  if (!principal) return { actor: 'anonymous', actorId: null, requestId: req.requestId };
  if (principal.kind === 'scanner')
    return { actor: `scanner:${principal.scannerId}`, actorId: principal.scannerId, requestId: req.requestId };
  return { actor: principal.email, actorId: principal.userId, requestId: req.requestId };
});
