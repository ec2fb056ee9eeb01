import type { Response } from 'express';

/** Every error body is one or more short lines of plain text (CONTRACT section 1). */
export function sendPlainText(res: Response, status: number, message: string): void {
  res
    .status(status)
    .type('text/plain; charset=utf-8')
    .send(message.endsWith('\n') ? message : `${message}\n`);
}
