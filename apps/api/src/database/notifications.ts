import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';

const CONNECT_TIMEOUT_MS = 5000;
const RECONNECT_MIN_MS = 1000;
const RECONNECT_MAX_MS = 30_000;

/** What a subscriber of one channel is told. */
export interface ChannelListener {
  /** A NOTIFY on the channel, committed on any replica (or by anyone with SQL access). */
  notified(payload: string): void;
  /**
   * The connection is listening (again, after it was down, or for the first time): notifications
   * sent meanwhile are lost, so whatever they would have told must be looked at afresh. While it is
   * down, `listening` is false.
   */
  resync(): void;
}

/**
 * One dedicated PostgreSQL connection per API process that LISTENs on every channel the
 * process's services subscribe to: scan work (docs/decisions/0012-scan-now.md), changes to sign-in
 * state and to counted rows (docs/performance.md, "Sessions" and "Counts"). Not a connection per waiting request or per
 * service: the pool stays free for real work. A dropped connection is re-opened with backoff; each
 * subscriber is then told to resync. `listening` says whether notifications can be trusted now.
 */
@Injectable()
export class DatabaseNotifications implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('DatabaseNotifications');
  private readonly listeners = new Map<string, ChannelListener[]>();
  private readonly forgetters: (() => void)[] = [];
  private client: Client | null = null;
  private closing = false;
  private reconnectDelayMs = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  listening = false;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Subscribes to `channel` (a fixed identifier, never user input); call it from a constructor. */
  subscribe(channel: string, listener: ChannelListener): void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), listener]);
  }

  /**
   * Registers what a cache built on notifications must do when this process itself wrote: the
   * notification of its own commit may arrive after the client's next request, so the cache
   * forgets at once instead (see wroteHere).
   */
  forgetAfterWrites(forget: () => void): void {
    this.forgetters.push(forget);
  }

  /** Called once a request that may have written has finished, before its response goes out. */
  wroteHere(): void {
    for (const forget of this.forgetters) forget();
  }

  onModuleInit(): void {
    void this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closing) return;
    const client = new Client({
      connectionString: (this.dataSource.options as PostgresConnectionOptions).url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // A silently dead connection (a failover, a cut network) is noticed and re-opened.
      keepAlive: true,
      application_name: 'certkeeper-api-listen',
    });
    this.client = client;
    client.on('notification', (message) => {
      for (const listener of this.listeners.get(message.channel) ?? []) listener.notified(message.payload ?? '');
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      for (const channel of this.listeners.keys()) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.client !== client) return;
    this.listening = true;
    this.reconnectDelayMs = RECONNECT_MIN_MS;
    for (const listener of [...this.listeners.values()].flat()) listener.resync();
  }

  private lost(client: Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    this.listening = false;
    client.removeAllListeners('notification');
    void client.end().catch(() => undefined);
    if (this.closing) return;
    this.logger.warn(
      `Not listening for database notifications (${error instanceof Error ? error.message : 'connection closed'}); ` +
        `retrying in ${Math.round(this.reconnectDelayMs / 1000)} s.`,
    );
    this.reconnectTimer = setTimeout(() => void this.connect(), this.reconnectDelayMs);
    this.reconnectDelayMs = Math.min(RECONNECT_MAX_MS, this.reconnectDelayMs * 2);
  }
}
