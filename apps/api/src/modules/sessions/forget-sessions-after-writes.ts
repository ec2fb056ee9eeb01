import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { finalize, type Observable } from 'rxjs';
import { SessionUserCache } from './session-user-cache';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * After any request that may have changed something (every method but GET, HEAD and OPTIONS),
 * this process forgets its cached session checks before the response goes out: a logout, a role
 * change or a disabled account is refused at the client's very next request, without waiting for
 * the notification that tells the other replicas (SessionUserCache).
 */
@Injectable()
export class ForgetSessionsAfterWrites implements NestInterceptor {
  constructor(private readonly cache: SessionUserCache) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (READS.has(context.switchToHttp().getRequest<Request>().method)) return next.handle();
    return next.handle().pipe(finalize(() => this.cache.forget()));
  }
}
