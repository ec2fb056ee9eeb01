import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isDatabaseUnreachable } from '../../database/errors';
import { redactPath } from './access-log';
import { sendPlainText } from './plain-text';
import { RetryLaterException } from './retry-later.exception';

const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The one exception filter: every error leaves as `text/plain` with a short human sentence (one
 * line per validation problem). Unexpected failures are logged with the request id and answered
 * with that id only, never a stack trace, SQL or secret.
 */
@Catch()
export class PlainTextExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const requestId = req.requestId ?? 'unknown';

    if (exception instanceof HttpException && exception.getStatus() < 500) {
      if (exception.getStatus() === 401) res.setHeader('WWW-Authenticate', 'Bearer');
      if (exception instanceof RetryLaterException) res.setHeader('Retry-After', String(exception.retryAfterSeconds));
      sendPlainText(res, exception.getStatus(), messageOf(exception));
      return;
    }

    // An outage or an overload is not a bug: one warning without a stack (a load balancer probing
    // health during a database outage would otherwise log a stack every few seconds), and a 503
    // that clients retry (docs/api-contract.md, health and database outages).
    if (isDatabaseUnreachable(exception)) {
      this.logger.warn(`${req.method} ${redactPath(req.path)} failed: the database is unreachable`, { requestId, status: 503 });
      if (res.headersSent) return;
      res.setHeader('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
      sendPlainText(res, 503, `The database is unreachable; try again shortly. Request id: ${requestId}`);
      return;
    }
    if (exception instanceof HttpException && exception.getStatus() === 503) {
      this.logger.warn(`${req.method} ${redactPath(req.path)} answered 503: ${messageOf(exception)}`, { requestId, status: 503 });
      if (!res.headersSent) sendPlainText(res, 503, `${messageOf(exception)} Request id: ${requestId}`);
      return;
    }

    const status: number = exception instanceof HttpException ? exception.getStatus() : 500;
    const error = exception instanceof Error ? exception : new Error(String(exception));
    // The calendar feed's path is its credential, and a driver's message or stack may quote it.
    this.logger.error(`${req.method} ${redactPath(req.path)} failed: ${redactPath(error.message)}`, {
      requestId,
      status,
      stack: error.stack === undefined ? undefined : redactPath(error.stack),
    });
    if (res.headersSent) return;
    if (status === 500 || !(exception instanceof HttpException)) {
      sendPlainText(res, 500, `Internal server error. Request id: ${requestId}`);
      return;
    }
    // Deliberate 5xx answers (502 for an upstream failure, 503 for an unreachable database) carry
    // their own message, written for the operator.
    sendPlainText(res, status, `${messageOf(exception)} Request id: ${requestId}`);
  }
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.map(String).join('\n');
  if (typeof message === 'string') return message;
  return exception.message;
}
