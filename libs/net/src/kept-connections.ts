import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

/**
 * Connections kept open between boundedFetch calls, for a run of many requests to one receiver
 * (the alert job's deliveries to one channel): a request takes an idle connection to its origin,
 * or opens one. Node's agents key their connections by host, port and TLS options, so a kept
 * connection never carries a request to another origin; the guard checked its address when it
 * was opened, and each request on it has its own deadline and size cap as on a fresh one. A
 * request that fails in any way closes its connection rather than leave it for the next. `close()`
 * ends every connection, idle or not; nothing outlives the run that made them.
 */
export class KeptConnections {
  readonly http = new HttpAgent({ keepAlive: true });
  readonly https = new HttpsAgent({ keepAlive: true });

  /** The agent for a request to `url`. */
  agentFor(url: URL): HttpAgent {
    return url.protocol === 'https:' ? this.https : this.http;
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}
