// Listens for swap notices (see notify-trigger.ts) on a connection of its own. A lost connection is reopened after a
// pause; notices sent meanwhile are lost, so the owner is told (onReconnect) and reads what it needs back.
import type pg from 'pg';
import type { Logger } from '../log/index.ts';
import { parseSwapNotice, type SwapNotice } from './notify-trigger.ts';

export interface SwapNoticesOptions {
  connect: () => Promise<pg.Client>;
  channel: string;
  logger: Logger;
  onNotice: (notice: SwapNotice) => void;
  /** Called as soon as the connection is found lost: notices may go unheard from here until onReconnect. */
  onLost?: () => void;
  /** Called once listening again after the connection was lost. */
  onReconnect: () => void;
  reconnectMs?: number;
}

export class SwapNotices {
  private client?: pg.Client;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly options: SwapNoticesOptions) {}

  /** Listens before resolving, so no notice of a write committed afterwards is missed. */
  async start(): Promise<void> {
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async listen(): Promise<void> {
    const client = await this.options.connect();
    client.on('notification', (message) => {
      if (message.channel !== this.options.channel) return;
      const notice = parseSwapNotice(message.payload);
      if (notice !== undefined) this.options.onNotice(notice);
    });
    client.on('error', (error) => this.lost(client, String(error)));
    client.on('end', () => this.lost(client, 'connection ended'));
    try {
      await client.query(`LISTEN "${this.options.channel}"`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
  }

  private lost(client: pg.Client, reason: string): void {
    if (this.stopped || this.client !== client) return;
    this.client = undefined;
    this.options.onLost?.();
    void client.end().catch(() => {});
    this.options.logger.warn('swap notices: connection lost, reconnecting', { reason });
    this.retry();
  }

  private retry(): void {
    this.timer = setTimeout(() => {
      this.listen().then(
        () => {
          this.options.logger.info('swap notices: listening again');
          this.options.onReconnect();
        },
        (error: unknown) => {
          this.options.logger.warn('swap notices: could not reconnect', { error: String(error) });
          if (!this.stopped) this.retry();
        },
      );
    }, this.options.reconnectMs ?? 1_000);
    this.timer.unref();
  }
}
