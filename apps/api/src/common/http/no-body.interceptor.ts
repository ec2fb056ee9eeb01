import { BadRequestException, type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Request } from 'express';
import type { Observable } from 'rxjs';

/**
 * A route that reads no body refuses one: garbage sent to `POST /alerts/run` is a mistake worth
 * a 400, not something to ignore. An empty body or an empty JSON object is fine, since many
 * clients send one with every POST.
 */
@Injectable()
export class NoUnexpectedBodyInterceptor implements NestInterceptor {
  private readonly readsBody = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    if (hasContent(req.body) && !this.handlerReadsBody(context)) throw new BadRequestException('This route takes no request body.');
    return next.handle();
  }

  private handlerReadsBody(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let reads = this.readsBody.get(handler);
    if (reads === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
      reads = Object.keys(args).some((key) => key.split(':')[0] === String(RouteParamtypes.BODY));
      this.readsBody.set(handler, reads);
    }
    return reads;
  }
}

function hasContent(body: unknown): boolean {
  if (body === undefined || body === null) return false;
  if (Buffer.isBuffer(body) || typeof body === 'string') return body.length > 0;
  if (typeof body === 'object') return Object.keys(body).length > 0;
  return true;
}
