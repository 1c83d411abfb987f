// Following swap statuses: the v2 WebSocket's swap.update channel, reconnected with backoff and resubscribed
// after every drop, with polling of GET /v2/swap/{id} whenever the socket is not up, so updates keep coming
// when the socket cannot be had at all. Each status change of a swap is delivered once, in order.
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { ServiceApi } from './api.ts';
import { ServiceError } from './errors.ts';
import type { StatusUpdate } from './types.ts';

export interface StatusStreamOptions {
  /** How often swaps are polled while the socket is down; default 5 s. */
  pollIntervalMs?: number;
  /** Reconnection backoff, doubling from min to max; default 500 ms to 15 s. */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** An application ping this often; a connection silent for two intervals is dropped. Default 15 s. */
  pingIntervalMs?: number;
  /** false: never try the socket, only poll. */
  webSocket?: boolean;
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface StatusStreamEvents {
  update: [StatusUpdate];
  connection: [ConnectionState];
  error: [Error];
}

/** Ids per subscribe message the service accepts. */
const MAX_IDS_PER_MESSAGE = 100;

export class StatusStream extends EventEmitter<StatusStreamEvents> {
  readonly api: ServiceApi;
  private readonly options: Required<StatusStreamOptions>;
  private readonly ids = new Set<string>();
  private readonly latest = new Map<string, StatusUpdate>();
  private socket: WebSocket | undefined;
  private state: ConnectionState = 'closed';
  private closed = false;
  private backoff: number;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private lastHeard = 0;
  /** Bumped by every socket update, so a poll answer that raced one is dropped instead of going back in time. */
  private socketGeneration = 0;

  constructor(serviceUrl: string | ServiceApi, options: StatusStreamOptions = {}) {
    super();
    this.api = typeof serviceUrl === 'string' ? new ServiceApi(serviceUrl) : serviceUrl;
    this.options = {
      pollIntervalMs: options.pollIntervalMs ?? 5_000,
      reconnectMinMs: options.reconnectMinMs ?? 500,
      reconnectMaxMs: options.reconnectMaxMs ?? 15_000,
      pingIntervalMs: options.pingIntervalMs ?? 15_000,
      webSocket: options.webSocket ?? true,
    };
    this.backoff = this.options.reconnectMinMs;
    // Errors are reported, never thrown at the emitter: a stream without listeners must not crash its process.
    this.on('error', () => {});
  }

  get connection(): ConnectionState {
    return this.state;
  }

  /** The last update heard for a swap. */
  current(id: string): StatusUpdate | undefined {
    return this.latest.get(id);
  }

  subscribe(...ids: string[]): void {
    if (this.closed) throw new Error('the status stream is closed');
    const fresh = ids.filter((id) => !this.ids.has(id));
    for (const id of fresh) this.ids.add(id);
    if (fresh.length === 0) return;
    if (this.state === 'open') this.sendSubscribe(fresh);
    else if (this.options.webSocket && this.socket === undefined && this.reconnectTimer === undefined) this.connect();
    if (this.state !== 'open') this.pollSoon(0);
  }

  unsubscribe(...ids: string[]): void {
    for (const id of ids) this.ids.delete(id);
    if (this.state === 'open') this.send({ op: 'unsubscribe', channel: 'swap.update', args: ids });
  }

  /** The first update of `id` that satisfies `accept`, heard before or after this call. */
  waitFor(id: string, accept: (update: StatusUpdate) => boolean, timeoutMs = 60_000): Promise<StatusUpdate> {
    const known = this.latest.get(id);
    if (known && accept(known)) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('update', listener);
        reject(new Error(`swap ${id}: no matching status within ${timeoutMs} ms (last: ${this.latest.get(id)?.status ?? 'none'})`));
      }, timeoutMs);
      const listener = (update: StatusUpdate) => {
        if (update.id !== id || !accept(update)) return;
        clearTimeout(timer);
        this.off('update', listener);
        resolve(update);
      };
      this.on('update', listener);
    });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.pollTimer);
    clearInterval(this.pingTimer);
    this.socket?.removeAllListeners();
    this.socket?.on('error', () => {});
    this.socket?.terminate();
    this.socket = undefined;
    this.setState('closed');
  }

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    this.emit('connection', state);
  }

  private connect(): void {
    if (this.closed) return;
    this.reconnectTimer = undefined;
    this.setState('connecting');
    const socket = new WebSocket(this.api.url.replace(/^http/, 'ws') + '/v2/ws');
    this.socket = socket;
    socket.on('open', () => {
      this.backoff = this.options.reconnectMinMs;
      this.lastHeard = Date.now();
      this.setState('open');
      clearTimeout(this.pollTimer);
      this.pollTimer = undefined;
      this.sendSubscribe([...this.ids]);
      this.pingTimer = setInterval(() => this.keepAlive(), this.options.pingIntervalMs);
    });
    socket.on('message', (data) => {
      this.lastHeard = Date.now();
      this.onMessage(data.toString());
    });
    socket.on('pong', () => (this.lastHeard = Date.now()));
    socket.on('error', (error) => this.emit('error', error));
    socket.on('close', () => this.onClose(socket));
  }

  private keepAlive(): void {
    if (Date.now() - this.lastHeard > 2 * this.options.pingIntervalMs) {
      this.socket?.terminate(); // 'close' follows and reconnects
      return;
    }
    this.send({ op: 'ping' });
  }

  private onClose(socket: WebSocket): void {
    if (this.socket !== socket) return;
    clearInterval(this.pingTimer);
    this.socket = undefined;
    if (this.closed) return;
    this.setState('closed');
    this.pollSoon(0);
    this.reconnectTimer = setTimeout(() => this.connect(), this.backoff);
    this.backoff = Math.min(this.backoff * 2, this.options.reconnectMaxMs);
  }

  private send(message: unknown): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private sendSubscribe(ids: string[]): void {
    for (let i = 0; i < ids.length; i += MAX_IDS_PER_MESSAGE) {
      this.send({ op: 'subscribe', channel: 'swap.update', args: ids.slice(i, i + MAX_IDS_PER_MESSAGE) });
    }
  }

  private onMessage(text: string): void {
    let message: { event?: string; args?: unknown; error?: unknown };
    try {
      message = JSON.parse(text);
    } catch {
      this.emit('error', new Error(`unparsable WebSocket message: ${text.slice(0, 100)}`));
      return;
    }
    if (message.event === 'update' && Array.isArray(message.args)) {
      this.socketGeneration++;
      for (const update of message.args as StatusUpdate[]) this.deliver(update);
    } else if (message.event === 'error') {
      this.emit('error', new Error(`service WebSocket error: ${String(message.error)}`));
    }
  }

  private deliver(update: StatusUpdate): void {
    if (typeof update?.id !== 'string' || typeof update.status !== 'string' || !this.ids.has(update.id)) return;
    const previous = this.latest.get(update.id);
    if (previous?.status === update.status) return;
    this.latest.set(update.id, update);
    this.emit('update', update);
  }

  private pollSoon(delay: number): void {
    if (this.closed || this.pollTimer !== undefined || this.ids.size === 0) return;
    this.pollTimer = setTimeout(() => void this.poll(), delay);
  }

  private async poll(): Promise<void> {
    this.pollTimer = undefined;
    if (this.closed || this.state === 'open') return;
    const generation = this.socketGeneration;
    await Promise.all(
      [...this.ids].map(async (id) => {
        try {
          const status = await this.api.swapStatus(id);
          if (this.socketGeneration === generation) this.deliver({ ...status, id });
        } catch (error) {
          // An unknown swap stays subscribed (the service may learn it); everything else is worth reporting.
          if (!(error instanceof ServiceError && error.status === 404)) this.emit('error', error as Error);
        }
      }),
    );
    // The socket may have opened meanwhile: then it carries the updates and polling stops.
    if (this.connection !== 'open') this.pollSoon(this.options.pollIntervalMs);
  }
}
