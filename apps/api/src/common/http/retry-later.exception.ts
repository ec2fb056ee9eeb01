import { HttpException, HttpStatus } from '@nestjs/common';

/** 429 with the seconds to wait, which the exception filter sends as `Retry-After`. */
export class RetryLaterException extends HttpException {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, HttpStatus.TOO_MANY_REQUESTS);
  }
}
