// The v2 WebSocket, served on the API's own HTTP server: upgrades to /v2/ws are accepted, any other path is
// refused. Protocol pings find dead peers (a peer that misses one ping round is dropped).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { SwapService } from '../../protocol/index.ts';
import type { StatusFeed } from '../../events/index.ts';
import type { Logger } from '../../log/index.ts';
import { SwapUpdateConnection } from './connection.ts';

export const webSocketPath = '/v2/ws';

export interface WebSocketOptions {
  pingIntervalMs: number;
  /** Largest client message; a bigger one closes the connection with 1009 (message too big). */
  maxPayloadBytes: number;
  maxSubscriptions: number;
  maxBufferedBytes: number;
}

export const defaultWebSocketOptions: WebSocketOptions = {
  pingIntervalMs: 15_000,
  // 100 ids of at most 64 characters fit with room to spare
  maxPayloadBytes: 32 * 1024,
  maxSubscriptions: 1_000,
  maxBufferedBytes: 1 << 20,
};

export interface SwapWebSocket {
  readonly clients: number;
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
  deps: { swaps: SwapService; feed: StatusFeed; logger: Logger },
  options: WebSocketOptions = defaultWebSocketOptions,
): SwapWebSocket {
  const { swaps, feed, logger } = deps;
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes });
  const alive = new WeakMap<WebSocket, boolean>();

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

  wss.on('connection', (ws: WebSocket) => {
    const connection = new SwapUpdateConnection(ws, swaps, feed, logger, options);
    alive.set(ws, true);
    ws.on('pong', () => alive.set(ws, true));
    ws.on('message', (data) => connection.receive(text(data)));
    // ws reports protocol violations (e.g. an oversized message) here and then closes the connection itself
    ws.on('error', (error) => logger.debug('websocket client error', { error: error.message }));
    ws.on('close', () => connection.close());
  });

  const pinger = setInterval(() => {
    for (const ws of wss.clients) {
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
    close() {
      clearInterval(pinger);
      server.off('upgrade', onUpgrade);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
