import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

// A caller-supplied id is kept when it is harmless, so a reverse proxy's id threads through.
const ACCEPTABLE_INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
  }
}

/** Gives every request an id and every response the `X-Request-Id` header, errors included. */
export function assignRequestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.header('x-request-id');
  req.requestId = incoming && ACCEPTABLE_INCOMING_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', req.requestId);
  next();
}
