import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the server answers one renewalInfo request. */
export interface RenewalInfoReply {
  status?: number;
  /** A JSON body; ignored when `rawBody` is given. */
  body?: unknown;
  rawBody?: string | Buffer;
  retryAfter?: string;
  /** Waits this long before answering (a CA past the client's deadline). */
  delayMs?: number;
}

export interface RenewalInfoRequest {
  certId: string;
  at: number;
}

export interface TestAcmeServer {
  /** The directory URL to configure as an ACME CA's `directoryUrl`. */
  directoryUrl: string;
  /** Every renewalInfo request, in arrival order. */
  requests: RenewalInfoRequest[];
  /** Directory reads so far. */
  readonly directoryReads: number;
  /** How the next requests are answered; by default a window starting now and ending in a week. */
  reply: (certId: string) => RenewalInfoReply;
  close(): Promise<void>;
}

/** A suggested window between two instants, as RFC 9773 writes it. */
export function windowBody(start: Date, end: Date, explanationURL?: string): unknown {
  return { suggestedWindow: { start: start.toISOString(), end: end.toISOString() }, ...(explanationURL ? { explanationURL } : {}) };
}

/**
 * A real ACME server on 127.0.0.1 that answers only what renewal information needs (RFC 9773):
 * the directory, with its `renewalInfo` URL unless `withoutRenewalInfo`, and `GET
 * /renewal-info/{certID}` as `reply` says.
 */
export async function startAcmeServer(options: { withoutRenewalInfo?: boolean } = {}): Promise<TestAcmeServer> {
  let directoryReads = 0;
  const pending = new Set<NodeJS.Timeout>();
  const requests: RenewalInfoRequest[] = [];
  let reply: TestAcmeServer['reply'] = () => ({ body: windowBody(new Date(), new Date(Date.now() + 7 * 24 * 3600 * 1000)) });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const path = req.url ?? '/';
    if (path === '/directory') {
      directoryReads += 1;
      const directory = { newNonce: `${base}/new-nonce`, newAccount: `${base}/new-account`, newOrder: `${base}/new-order` };
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify(options.withoutRenewalInfo ? directory : { ...directory, renewalInfo: `${base}/renewal-info` }));
    }
    const match = /^\/renewal-info\/([^/]+)$/.exec(path);
    if (!match) return void res.writeHead(404).end();
    requests.push({ certId: match[1], at: Date.now() });
    const answer = reply(match[1]);
    const send = () => {
      if (res.destroyed) return;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (answer.retryAfter !== undefined) headers['retry-after'] = answer.retryAfter;
      res.writeHead(answer.status ?? 200, headers);
      res.end(answer.rawBody ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
    };
    if (!answer.delayMs) return send();
    const timer = setTimeout(() => {
      pending.delete(timer);
      send();
    }, answer.delayMs);
    pending.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    directoryUrl: `http://127.0.0.1:${port}/directory`,
    requests,
    get directoryReads() {
      return directoryReads;
    },
    get reply() {
      return reply;
    },
    set reply(next) {
      reply = next;
    },
    close: async () => {
      for (const timer of pending) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
