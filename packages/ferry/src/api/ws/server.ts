// The v2 WebSocket, served on the API's own HTTP server: upgrades to /v2/ws are accepted, any other path is
// refused. Protocol pings find dead peers (a peer that misses one ping round is dropped). Connections over the
// per-address or total cap are accepted and closed at once with a code and a reason, which a browser client can
// read (a refused upgrade shows it only a failed connection).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import type { StatusFeed } from '../../events/index.ts';
import type { Logger } from '../../log/index.ts';
import { ClientAddresses } from '../limits/client-address.ts';
import { SubscriptionBudget, SwapUpdateConnection, policyViolation } from './connection.ts';
import type { InvoiceRequestHub } from './invoice-requests.ts';

export const webSocketPath = '/v2/ws';

export interface WebSocketOptions {
  pingIntervalMs: number;
  /** Largest client message; a bigger one closes the connection with 1009 (message too big). */
  maxPayloadBytes: number;
  /** Swaps per connection; 0: unlimited. */
  maxSubscriptions: number;
  maxBufferedBytes: number;
  /** Swaps watched by all connections together; 0: unlimited. */
  maxTotalSubscriptions: number;
  /** Messages per minute per connection; 0: unlimited. */
  messagesPerMinute: number;
  /** Connections per client address, and in all; 0: unlimited. */
  maxConnectionsPerIp: number;
  maxConnections: number;
}

export const defaultWebSocketOptions: WebSocketOptions = {
  pingIntervalMs: 15_000,
  // 100 ids of at most 64 characters fit with room to spare
  maxPayloadBytes: 32 * 1024,
  maxSubscriptions: 1_000,
  maxBufferedBytes: 1 << 20,
  maxTotalSubscriptions: 0,
  messagesPerMinute: 0,
  maxConnectionsPerIp: 0,
  maxConnections: 0,
};

/** 1013 Try Again Later: the server, not this client, is at its limit. */
const tryAgainLater = 1013;

export interface SwapWebSocket {
  readonly clients: number;
  /** Swaps watched by all connections together. */
  readonly subscriptions: number;
  close(): void;
}

function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

function refuse(socket: Duplex, status: string): void {
  socket.on('error', () => {});
  socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
}

export function attachWebSocket(
  server: Server,
  deps: { swaps: SwapService; feed: StatusFeed; logger: Logger; addresses?: ClientAddresses; invoiceRequests?: InvoiceRequestHub },
  options: WebSocketOptions = defaultWebSocketOptions,
): SwapWebSocket {
  const { swaps, feed, logger } = deps;
  const addresses = deps.addresses ?? new ClientAddresses([]);
  const budget = new SubscriptionBudget(options.maxTotalSubscriptions);
  const perAddress = new Map<string, number>();
  let accepted = 0;
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes });
  const alive = new WeakMap<WebSocket, boolean>();
  const connections = new WeakMap<WebSocket, SwapUpdateConnection>();

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    let path: string;
    try {
      path = new URL(request.url ?? '/', 'http://localhost').pathname;
    } catch {
      return refuse(socket, '400 Bad Request');
    }
    if (path !== webSocketPath) return refuse(socket, '404 Not Found');
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  server.on('upgrade', onUpgrade);

  wss.on('connection', (ws: WebSocket, request: IncomingMessage) => {
    ws.on('error', (error) => logger.debug('websocket client error', { error: error.message }));
    const address = addresses.of(request);
    const fromAddress = perAddress.get(address) ?? 0;
    if (options.maxConnectionsPerIp > 0 && fromAddress >= options.maxConnectionsPerIp) {
      return ws.close(policyViolation, `too many connections from your address: at most ${options.maxConnectionsPerIp}`);
    }
    if (options.maxConnections > 0 && accepted >= options.maxConnections) {
      return ws.close(tryAgainLater, 'server busy: too many connections, try again later');
    }
    accepted++;
    perAddress.set(address, fromAddress + 1);
    const connection = new SwapUpdateConnection(ws, swaps, feed, logger, options, budget, deps.invoiceRequests);
    connections.set(ws, connection);
    alive.set(ws, true);
    ws.on('pong', () => alive.set(ws, true));
    ws.on('message', (data) => {
      alive.set(ws, true); // a peer that talks is alive, even when its pong waits behind its own messages
      connection.receive(text(data));
    });
    ws.on('close', () => {
      connection.close();
      accepted--;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });

  const pinger = setInterval(() => {
    for (const ws of wss.clients) {
      // a connection behind on its own backlog stopped reading the socket: the pong is there, unread
      if (connections.get(ws)?.behind) continue;
      if (!alive.get(ws)) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, options.pingIntervalMs);
  pinger.unref();

  return {
    get clients() {
      return wss.clients.size;
    },
    get subscriptions() {
      return budget.used;
    },
    close() {
      clearInterval(pinger);
      server.off('upgrade', onUpgrade);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
