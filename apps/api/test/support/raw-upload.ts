import { type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { TestApp } from './test-app';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Body bytes the client had written when the answer arrived. */
  sent: number;
  /** Bytes the server had read from the connection (headers and chunk framing included) when it answered. */
  serverRead: number;
}

export interface RawUpload {
  method?: string;
  path: string;
  /** Without Content-Length the body goes chunked. */
  headers: Record<string, string | number>;
  /** Written as fast as the server takes it, and no longer once the server has answered. */
  body: Iterable<Buffer>;
}

/**
 * Sends a body the way a hostile or careless client would, and reports how much of it the server
 * had read when it answered: supertest buffers whole bodies and hides what the server consumed.
 */
export async function sendRaw(t: TestApp, upload: RawUpload): Promise<RawAnswer> {
  const server = t.app.getHttpServer();
  // By the client's port, noted while the connection is open: a closed socket forgets its peer.
  const readWhenAnswered = new Map<number | undefined, number>();
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const port = req.socket.remotePort;
    res.once('finish', () => readWhenAnswered.set(port, req.socket.bytesRead));
  };
  server.on('request', onRequest);
  try {
    const answer = await exchange(t, upload);
    // The server notes its answer finished a moment after the client may have read it.
    for (let tries = 0; !readWhenAnswered.has(answer.port) && tries < 100; tries += 1) await new Promise((r) => setTimeout(r, 10));
    const serverRead = readWhenAnswered.get(answer.port);
    if (serverRead === undefined) throw new Error('The server never finished its answer.');
    return { ...answer, serverRead };
  } finally {
    server.off('request', onRequest);
  }
}

type Exchange = Omit<RawAnswer, 'serverRead'> & { port: number | undefined };

function exchange(t: TestApp, upload: RawUpload): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answer: Exchange | undefined;
    const req = request(new URL(upload.path, t.baseUrl), { method: upload.method ?? 'POST', headers: upload.headers, agent: false });
    req.on('response', (res) => {
      const port = req.socket?.localPort;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        answer = { status: res.statusCode ?? 0, headers: res.headers, text, sent, port };
        req.destroy();
        resolve(answer);
      });
    });
    // Once the server has answered and closed, the rest of the upload fails to send: expected.
    req.on('error', (error) => {
      if (!answer) reject(error);
    });
    const chunks = upload.body[Symbol.iterator]();
    const writeMore = () => {
      for (;;) {
        if (answer || req.destroyed) return;
        const next = chunks.next();
        if (next.done) {
          req.end();
          return;
        }
        sent += next.value.length;
        if (!req.write(next.value)) {
          req.once('drain', writeMore);
          return;
        }
      }
    };
    writeMore();
  });
}

/** `total` bytes of `fill` (endless by default), in 1 MiB pieces, never all in memory at once. */
export function* repeated(total = Number.POSITIVE_INFINITY, fill = ' '): Generator<Buffer> {
  const piece = Buffer.alloc(1024 * 1024, fill);
  for (let left = total; left > 0; left -= piece.length) yield left >= piece.length ? piece : piece.subarray(0, left);
}

/**
 * A client that ignores answers: sends `head` and then chunked data until the server cuts the
 * connection. Reports when the first answer bytes arrived and when the connection died.
 */
export function floodUntilCut(t: TestApp, head: string): Promise<{ answer: string; cutAfterMs: number }> {
  const { hostname, port } = new URL(t.baseUrl);
  return new Promise((resolve) => {
    // allowHalfOpen: the server's FIN must not make this client stop sending.
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    const chunk = Buffer.concat([Buffer.from(`100000\r\n`), Buffer.alloc(0x100000, ' '), Buffer.from('\r\n')]);
    let answer = '';
    let answeredAt: number | null = null;
    socket.on('data', (data: Buffer) => {
      answeredAt ??= Date.now();
      answer += data.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ answer, cutAfterMs: answeredAt === null ? -1 : Date.now() - answeredAt }));
    const flood = () => {
      while (!socket.destroyed && socket.write(chunk));
      if (!socket.destroyed) socket.once('drain', flood);
    };
    socket.write(head.replace(/\r?\n/g, '\r\n') + '\r\n\r\n');
    flood();
  });
}
