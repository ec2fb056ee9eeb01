import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { LoopbackServers } from './loopback-servers';

/** One request a receiver took: what a notification channel's tests read back. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Which of the receiver's connections, in the order they were opened (0 first), the request came on. */
  connection: number;
}

/** How a receiver answers the `index`th request (0-based): a status after an optional delay, or never. */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'stall';

export interface HttpReceiver {
  /** The base URL, `http://127.0.0.1:<port>`. */
  url: string;
  requests: ReceivedRequest[];
  /** Changes how the following requests are answered. */
  answer(next: (request: ReceivedRequest, index: number) => ReceiverAnswer): void;
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 (node:http) for the notification channels' tests and benchmark:
 * keeps every request whole and answers as told, 200 until told otherwise. A request is recorded
 * when its body has arrived, before it is answered, so a stalled or failed answer still shows.
 */
export async function startHttpReceiver(
  answer: (request: ReceivedRequest, index: number) => ReceiverAnswer = () => ({ status: 200 }),
): Promise<HttpReceiver> {
  const servers = new LoopbackServers();
  const requests: ReceivedRequest[] = [];
  let answerOf = answer;
  const timers = new Set<NodeJS.Timeout>();
  const connections = new WeakMap<Socket, number>();
  let opened = 0;
  const url = await servers.serve((req, res) => {
    if (!connections.has(req.socket)) connections.set(req.socket, opened++);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        connection: connections.get(req.socket)!,
      };
      const index = requests.push(request) - 1;
      const reply = answerOf(request, index);
      if (reply === 'stall') return;
      const send = () => res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
      if (!reply.delayMs) return send();
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, reply.delayMs);
      timers.add(timer);
    });
  });
  return {
    url,
    requests,
    answer: (next) => {
      answerOf = next;
    },
    close: async () => {
      timers.forEach(clearTimeout);
      await servers.closeAll();
    },
  };
}
