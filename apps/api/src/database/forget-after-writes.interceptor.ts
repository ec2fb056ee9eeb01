import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { finalize, type Observable } from 'rxjs';
import { DatabaseNotifications } from './notifications';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * After any request that may have changed something (every method but GET, HEAD and OPTIONS),
 * this process's notification-built caches (session checks, counts) forget what they hold before
 * the response goes out: the client's very next request sees its own change, without waiting for
 * the notification that tells the other replicas (docs/performance.md, "Sessions" and "Counts").
 */
@Injectable()
export class ForgetAfterWrites implements NestInterceptor {
  constructor(private readonly notifications: DatabaseNotifications) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (READS.has(context.switchToHttp().getRequest<Request>().method)) return next.handle();
    return next.handle().pipe(finalize(() => this.notifications.wroteHere()));
  }
}
