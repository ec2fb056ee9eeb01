import type { NextFunction, Request, Response } from 'express';
import { sendPlainText } from './plain-text';

/** PostgreSQL text cannot hold NUL: refusing it in the URL turns a would-be 500 into a clear 400. */
export function refuseNulInUrl(req: Request, res: Response, next: NextFunction): void {
  if (/%00/i.test(req.url)) {
    sendPlainText(res, 400, 'The URL contains a NUL character.');
    return;
  }
  next();
}
