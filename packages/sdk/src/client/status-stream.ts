// Following swap statuses: the v2 WebSocket's swap.update channel, reconnected with backoff and resubscribed
// after every drop, with polling of GET /v2/swap/{id} whenever the socket is not up, so updates keep coming
// when the socket cannot be had at all. Each status change of a swap is delivered once, in order. The socket is the
// platform's WebSocket (browsers, Node 22+) or one given: node.ts gives Node 20 the `ws` package's, which speaks the
// same API.
import { ServiceApi } from './api.ts';
import { TypedEmitter } from './emitter.ts';
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
  /** The WebSocket class to connect with; default: the one setDefaultWebSocket gave, else globalThis.WebSocket. */
  WebSocket?: WebSocketConstructor;
}

/** The part of the WHATWG WebSocket this uses: browsers', Node 22's, and the `ws` package's all have it. */
export interface WebSocketLike {
  readonly readyState: number;
  addEventListener(type: 'open' | 'close' | 'error', listener: (event: unknown) => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  send(data: string): void;
  close(): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** readyState of an open WebSocket, the same in every implementation. */
const OPEN = 1;

let defaultWebSocket: WebSocketConstructor | undefined;

/** The WebSocket class streams use when none is given (node.ts sets the `ws` package's where Node has none). */
export function setDefaultWebSocket(constructor: WebSocketConstructor): void {
  defaultWebSocket = constructor;
}

const platformWebSocket = (): WebSocketConstructor | undefined =>
  defaultWebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;

/** What an error event carries: `ws` and Node give an Error or a message, browsers nothing. */
function errorOf(event: unknown, url: string): Error {
  const { error, message } = (event ?? {}) as { error?: unknown; message?: unknown };
  if (error instanceof Error) return error;
  return new Error(`WebSocket ${url}: ${typeof message === 'string' && message !== '' ? message : 'connection error'}`);
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface StatusStreamEvents {
  update: [StatusUpdate];
  connection: [ConnectionState];
  error: [Error];
}

/** Ids per subscribe message the service accepts. */
const MAX_IDS_PER_MESSAGE = 100;

export class StatusStream extends TypedEmitter<StatusStreamEvents> {
  readonly api: ServiceApi;
  private readonly options: Required<Omit<StatusStreamOptions, 'WebSocket'>>;
  private readonly WebSocket: WebSocketConstructor | undefined;
  private readonly ids = new Set<string>();
  private readonly latest = new Map<string, StatusUpdate>();
  private socket: WebSocketLike | undefined;
  private state: ConnectionState = 'closed';
  private closed = false;
  private backoff: number;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
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
    this.WebSocket = options.WebSocket ?? platformWebSocket();
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
    // The socket's listeners check it is still this stream's: from here on they hear nothing.
    const socket = this.socket;
    this.socket = undefined;
    socket?.close();
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
    const url = this.api.url.replace(/^http/, 'ws') + '/v2/ws';
    if (this.WebSocket === undefined) {
      // Polling carries the updates; said once, since no later attempt can do better.
      this.options.webSocket = false;
      this.emit('error', new Error('no WebSocket on this platform (pass the WebSocket option, or import the SDK through its Node entry): polling only'));
      return;
    }
    this.setState('connecting');
    let socket: WebSocketLike;
    try {
      socket = new this.WebSocket(url);
    } catch (error) {
      this.emit('error', error as Error);
      this.socket = undefined;
      this.setState('closed');
      this.pollSoon(0);
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    const current = () => this.socket === socket;
    socket.addEventListener('open', () => {
      if (!current()) return;
      this.backoff = this.options.reconnectMinMs;
      this.lastHeard = Date.now();
      this.setState('open');
      clearTimeout(this.pollTimer);
      this.pollTimer = undefined;
      this.sendSubscribe([...this.ids]);
      this.pingTimer = setInterval(() => this.keepAlive(), this.options.pingIntervalMs);
    });
    socket.addEventListener('message', (event) => {
      if (!current()) return;
      this.lastHeard = Date.now();
      this.onMessage(typeof event.data === 'string' ? event.data : String(event.data));
    });
    socket.addEventListener('error', (event) => {
      if (current()) this.emit('error', errorOf(event, url));
    });
    socket.addEventListener('close', () => this.onClose(socket));
  }

  /** The service answers each ping with a pong message: a socket silent for two intervals is dead, whatever it says. */
  private keepAlive(): void {
    const socket = this.socket;
    if (socket !== undefined && Date.now() - this.lastHeard > 2 * this.options.pingIntervalMs) {
      // A dead connection's close handshake may never finish: give it up now rather than wait for its 'close'.
      this.onClose(socket);
      socket.close();
      return;
    }
    this.send({ op: 'ping' });
  }

  private onClose(socket: WebSocketLike): void {
    if (this.socket !== socket) return;
    clearInterval(this.pingTimer);
    this.socket = undefined;
    if (this.closed) return;
    this.setState('closed');
    this.pollSoon(0);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.reconnectTimer = setTimeout(() => this.connect(), this.backoff);
    this.backoff = Math.min(this.backoff * 2, this.options.reconnectMaxMs);
  }

  private send(message: unknown): void {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify(message));
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
