import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * A refusal that passes (429 by default; 409 for work in progress elsewhere) with the seconds to
 * wait, which the exception filter sends as `Retry-After`.
 */
export class RetryLaterException extends HttpException {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    status: HttpStatus.TOO_MANY_REQUESTS | HttpStatus.CONFLICT = HttpStatus.TOO_MANY_REQUESTS,
  ) {
    super(message, status);
  }
}
