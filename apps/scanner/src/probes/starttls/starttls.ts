import type { Socket } from 'node:net';

// Declared in libs/domain so that the API (validation, the column's CHECK) and the agent share one list.
export { STARTTLS_PROTOCOLS, type StarttlsProtocol } from '@certkeeper/domain/protocol';

export interface UpgradeOptions {
  /** The endpoint's DNS name: the EHLO argument, XMPP's `to`. */
  serverName: string;
  /** Deadline of each read of the dialogue (a line, a PDU, a byte). */
  readTimeoutMs: number;
}

/**
 * A refused or failed upgrade: the message names the step, as the scan's error shows it
 * ("server did not offer STARTTLS", "upgrade refused: 454 TLS not available", "no reply to EHLO
 * within 10 s").
 */
export class StarttlsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StarttlsError';
  }
}

/**
 * What a protocol says inside the TLS session, after the handshake, to end the session as its
 * clients do, given the endpoint's DNS name; null: nothing, close_notify alone ends it.
 */
export type Goodbye = (serverName: string) => string | Buffer | null;

/**
 * Speaks one protocol's plain-text dialogue on a connected socket up to the point where the
 * server expects a TLS ClientHello, then resolves, leaving the socket paused with nothing of the
 * server's unread (the TLS layer reads next). Every read has a deadline and every line a size cap.
 * @throws StarttlsError naming the step that failed.
 */
export type Upgrader = (socket: Socket, options: UpgradeOptions) => Promise<void>;
