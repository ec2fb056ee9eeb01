import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

const logger = new Logger('Access');

// The calendar URL is itself the credential: never let it reach a log file.
const SECRET_PATH_SEGMENTS = /(\/calendar\/u\/)[^/?\s]+/g;

/** `path` (or any text quoting one) with every calendar token replaced by `[redacted]`. */
export function redactPath(path: string): string {
  return path.replace(SECRET_PATH_SEGMENTS, '$1[redacted]');
}

/** One structured line per request once the response is finished. */
export function accessLog(req: Request, res: Response, next: NextFunction): void {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    logger.log('request', {
      requestId: req.requestId,
      method: req.method,
      path: redactPath(req.path),
      status: res.statusCode,
      durationMs: Math.round(durationMs * 10) / 10,
    });
  });
  next();
}
