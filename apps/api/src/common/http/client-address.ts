import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/**
 * The client's address: the peer, or the address a trusted reverse proxy reports when TRUST_PROXY
 * says which proxies to believe (Express's `trust proxy`, set in create-app.ts).
 */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** `@ClientAddress()`: the request's client address, for per-address limits. */
export const ClientAddress = createParamDecorator((_: unknown, ctx: ExecutionContext): string =>
  clientAddress(ctx.switchToHttp().getRequest<Request>()),
);
