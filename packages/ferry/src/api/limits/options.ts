// The API's limits against floods and resource exhaustion. 0 turns a limit off. Their defaults are the [limits]
// section of the configuration schema (src/config/schema.ts); operators behind a reverse proxy must list it in
// trustedProxies, or every client shares the proxy's address and its buckets.

export interface ApiLimits {
  /** Token bucket per client address for reads (every request that creates no swap): burst, then per second. */
  readBurst: number;
  readPerSecond: number;
  /** The same for creation calls (POST /v2/swap/submarine|reverse|chain, POST /createswap), kept apart. */
  createBurst: number;
  createPerSecond: number;
  /** Addresses (or IPv4/IPv6 CIDR ranges) whose X-Forwarded-For names the client; empty: the header is ignored. */
  trustedProxies: string[];
  /** Sockets the HTTP server holds at once (HTTP, SSE and WebSocket alike); further ones are refused. */
  maxConnections: number;
  /** Time for a client to send the whole request head, counted from connect: slow-header (slowloris) and silent
   *  sockets are answered 408 and closed after it. */
  headersTimeoutMs: number;
  /** Time for a client to send the whole request, head and body. */
  requestTimeoutMs: number;
  /** WebSocket connections per client address, and in all. */
  wsConnectionsPerIp: number;
  wsConnections: number;
  /** Messages a WebSocket client may send per minute; more closes it with 1008 and a reason. */
  wsMessagesPerMinute: number;
  /** Swaps one WebSocket connection may watch, and all connections together. */
  wsSubscriptionsPerConnection: number;
  wsSubscriptions: number;
}

/** No limit at all: what library callers and transport tests get unless they ask for limits. */
export const noLimits: ApiLimits = {
  readBurst: 0,
  readPerSecond: 0,
  createBurst: 0,
  createPerSecond: 0,
  trustedProxies: [],
  maxConnections: 0,
  headersTimeoutMs: 60_000,
  requestTimeoutMs: 300_000,
  wsConnectionsPerIp: 0,
  wsConnections: 0,
  wsMessagesPerMinute: 0,
  wsSubscriptionsPerConnection: 0,
  wsSubscriptions: 0,
};
