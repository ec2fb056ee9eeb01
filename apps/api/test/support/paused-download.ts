import http from 'node:http';

/** A streamed response whose client read its first chunk, then stopped reading. */
export interface PausedDownload {
  req: http.ClientRequest;
  res: http.IncomingMessage;
  first: Buffer;
  /** `end` when the response finished whole; `aborted` or `error` when the server cut it. */
  outcome: Promise<'end' | 'aborted' | 'error'>;
}

/**
 * GETs `url` on a connection of its own, expects a 200, and resolves at the first chunk with the
 * response paused: for what a streamed response does when its client is slow, leaves (`req.destroy()`)
 * or stalls. `res.resume()` reads on.
 */
export function startPausedDownload(url: string, headers: Record<string, string>): Promise<PausedDownload> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      expect(res.statusCode).toBe(200);
      const outcome = new Promise<'end' | 'aborted' | 'error'>((settle) => {
        res.on('end', () => settle('end'));
        res.on('aborted', () => settle('aborted'));
        res.on('error', () => settle('error'));
      });
      res.once('data', (first: Buffer) => {
        res.pause();
        resolve({ req, res, first, outcome });
      });
    });
    req.on('error', reject);
  });
}
