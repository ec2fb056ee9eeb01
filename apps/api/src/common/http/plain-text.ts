import type { Response } from 'express';
import { declaresBody } from './body-parsing';

/** How long a refused upload may keep arriving, discarded, after the answer (see closeLingering). */
const LINGER_MS = 1_000;

/** Every error body is one or more short lines of plain text (docs/api-contract.md section 1). */
export function sendPlainText(res: Response, status: number, message: string): void {
  // A refusal before the body was read in full (401, 403, an unknown route, 413) would otherwise
  // keep the connection and make Node read and discard the rest of the upload, however long.
  if (declaresBody(res.req) && !res.req.complete) closeLingering(res);
  res
    .status(status)
    .type('text/plain; charset=utf-8')
    .send(message.endsWith('\n') ? message : `${message}\n`);
}

/**
 * Answers with `Connection: close`. Node then ends the socket and destroys it as soon as the answer
 * is written, and upload bytes still arriving make the kernel reset the connection: a client
 * busy sending can meet that reset before it reads the answer, and report a broken pipe instead
 * of our 401 or 413. Like nginx's lingering close, the socket is half-closed instead, and what
 * still arrives is discarded for LINGER_MS, time for the client to read the answer and stop.
 */
function closeLingering(res: Response): void {
  res.setHeader('Connection', 'close');
  const { socket, req } = res;
  if (!socket) return;
  // Node's HTTP server calls destroySoon() once a Connection: close answer is written.
  socket.destroySoon = () => {
    socket.end();
    req.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}
