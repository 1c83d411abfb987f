// The HTTP server: body limits, JSON parsing, error answers and CORS live here, so no route can forget them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../log/index.ts';
import { HttpError } from './errors.ts';
import type { Request, Router } from './router.ts';
import type { HttpLimiter } from '../limits/http-limiter.ts';

/** A handler that owns the raw response (e.g. a server-sent event stream) instead of answering one JSON body. */
export type RawHandler = (request: IncomingMessage, response: ServerResponse, url: URL) => Promise<void>;

export interface HttpServerOptions {
  router: Router;
  logger: Logger;
  maxBodyBytes: number;
  rawRoutes?: Map<string, RawHandler>; // by exact path
  /**
   * Raw handlers for every path under a prefix (ending in '/'), e.g. the swap page's chunks. Looked at only once the
   * exact raw routes and the API's router both missed: the API's requests never pay for them.
   */
  rawPrefixes?: ReadonlyArray<{ prefix: string; handler: RawHandler }>;
  /** Per-address request rates; none: unlimited. */
  limiter?: HttpLimiter;
  /** Socket limits and timeouts (see ApiLimits); none: Node's defaults. */
  sockets?: SocketLimits;
  /** Called once per answered request with the route pattern (or what was refused) and the time taken. */
  observe?: (method: string, route: string, status: number, seconds: number) => void;
  /**
   * GET answers known without routing, by request target (the kept status bodies of swap-status.ts): the route
   * named `keptRoute` would answer the same JSON text. Rate limits, CORS and metrics apply as to any request.
   */
  keptReads?: (target: string) => string | undefined;
  keptRoute?: string;
}

export interface SocketLimits {
  maxConnections: number; // 0: unlimited
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  sendText(response, status, JSON.stringify(body));
}

/** A JSON answer given as text: the headers set on the response, then these, as one flat list (no object to copy). */
function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, ['content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(text))]);
  response.end(text);
}

class BodyTooLarge extends Error {}
/** The client went away (aborted or reset) while sending its body: nothing to answer, nothing to alarm about. */
class ClientGone extends Error {}

function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLarge());
        request.pause();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', (error) => reject(new ClientGone(error.message)));
  });
}

/**
 * The JSON requests a server made by createHttpServer is answering, so that stopping it answers them before the
 * connections go (streams — raw routes — are cut: they never end by themselves).
 */
class InFlight {
  closing = false;
  private readonly answering = new Set<ServerResponse>();
  private drained?: () => void;

  begin(response: ServerResponse): void {
    // Stopping: answer, then close the connection rather than keep it alive for a request that would be cut.
    if (this.closing) response.shouldKeepAlive = false;
    this.answering.add(response);
    const end = () => {
      this.answering.delete(response);
      if (this.closing && this.answering.size === 0) this.drained?.();
    };
    response.once('finish', end);
    response.once('close', end);
  }

  /** Stops keeping connections alive; resolves once every request in flight has been answered (or its client left). */
  drain(): Promise<void> {
    this.closing = true;
    for (const response of this.answering) if (!response.headersSent) response.shouldKeepAlive = false;
    if (this.answering.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.drained = resolve;
    });
  }
}

const inFlightOf = new WeakMap<Server, InFlight>();

/**
 * Cross-origin access for every answer: wallets' web apps call the API from their own origin, as the reference
 * API allows (any origin; no credentials: nothing here is authorised by a cookie, so `*` lends a page nothing it
 * could not send itself). A 429's retry-after is readable by the page.
 */
function allowCrossOrigin(response: ServerResponse): void {
  for (let i = 0; i < crossOrigin.length; i += 2) response.setHeader(crossOrigin[i], crossOrigin[i + 1]);
}

const crossOrigin = ['access-control-allow-origin', '*', 'access-control-expose-headers', 'retry-after'] as const;

/** A browser's preflight before a JSON POST (or any non-simple request): which methods and headers may follow. */
function answerPreflight(request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('access-control-allow-methods', 'GET, HEAD, PUT, PATCH, POST, DELETE');
  // The headers the page asked for, as the reference answers: partner calls sign with their own (TS, API-KEY, ...).
  const asked = request.headers['access-control-request-headers'];
  if (asked) response.setHeader('access-control-allow-headers', asked);
  response.setHeader('vary', 'access-control-request-headers');
  response.setHeader('access-control-max-age', '600');
  response.writeHead(204, { 'content-length': '0' });
  response.end();
}

export function createHttpServer(options: HttpServerOptions): Server {
  const { router, logger, maxBodyBytes, limiter } = options;
  const inFlight = new InFlight();

  // `route` is what metrics name the request by: the matched pattern, never the raw path (unbounded labels)
  const handle = async (request: IncomingMessage, response: ServerResponse, route: { name: string }): Promise<void> => {
    allowCrossOrigin(response);
    let url: URL;
    try {
      url = new URL(request.url ?? '/', 'http://localhost');
    } catch {
      return sendJson(response, 400, { error: 'invalid request target' });
    }
    const retryAfter = limiter?.admit(request, url.pathname) ?? 0;
    if (retryAfter > 0) {
      route.name = 'limited';
      response.setHeader('retry-after', String(retryAfter));
      return sendJson(response, 429, { error: `too many requests: try again in ${retryAfter} s` });
    }
    if (request.method === 'OPTIONS') {
      route.name = 'preflight';
      return answerPreflight(request, response);
    }
    const raw = options.rawRoutes?.get(url.pathname);
    if (raw) {
      route.name = url.pathname;
      return raw(request, response, url);
    }
    inFlight.begin(response);
    const method = request.method ?? 'GET';
    const match = router.match(method, url.pathname);
    if (match === 'not-found') {
      const prefixed = options.rawPrefixes?.find(({ prefix }) => url.pathname.startsWith(prefix));
      if (prefixed) {
        route.name = `${prefixed.prefix}*`; // the prefix, not the path: metrics' labels stay bounded
        return prefixed.handler(request, response, url);
      }
      return sendJson(response, 404, { error: `not found: ${method} ${url.pathname}` });
    }
    if (match === 'method') return sendJson(response, 405, { error: `method not allowed: ${method} ${url.pathname}` });
    route.name = match.pattern;

    let rawBody = '';
    let body: unknown;
    if (method !== 'GET' && method !== 'HEAD') {
      try {
        rawBody = await readBody(request, maxBodyBytes);
      } catch (error) {
        if (error instanceof BodyTooLarge) {
          response.setHeader('connection', 'close');
          return sendJson(response, 413, { error: `request body is larger than ${maxBodyBytes} bytes` });
        }
        if (error instanceof ClientGone) {
          logger.debug('client left while sending its body', { method, path: url.pathname, reason: error.message });
          return;
        }
        throw error;
      }
      if (rawBody.trim() !== '') {
        try {
          body = JSON.parse(rawBody);
        } catch (error) {
          return sendJson(response, 400, { error: `invalid JSON body: ${(error as Error).message}` });
        }
      }
    }

    const req: Request = {
      method,
      path: url.pathname,
      target: request.url ?? '/',
      query: url.searchParams,
      params: match.params,
      headers: request.headers,
      body,
      rawBody,
    };
    try {
      const reply = await match.handler(req);
      if (reply.json !== undefined) sendText(response, reply.status ?? 200, reply.json);
      else sendJson(response, reply.status ?? 200, reply.body);
    } catch (error) {
      if (error instanceof HttpError) {
        sendJson(response, error.status, { error: error.message, ...error.extra });
      } else {
        logger.error('request failed', { method, path: url.pathname, error: (error as Error).stack ?? String(error) });
        sendJson(response, 500, { error: 'internal error' });
      }
    }
  };

  const { keptReads, keptRoute = 'kept' } = options;
  /** Answers a GET whose body is kept (true), or leaves it to `handle` (false), having done nothing. */
  const answerKept = (request: IncomingMessage, response: ServerResponse, route: { name: string }): boolean => {
    const target = request.url ?? '/';
    if (options.rawRoutes?.has(target)) return false;
    const text = keptReads!(target);
    if (text === undefined) return false;
    route.name = keptRoute;
    const retryAfter = limiter?.admit(request, target) ?? 0;
    if (retryAfter > 0) {
      allowCrossOrigin(response);
      route.name = 'limited';
      response.setHeader('retry-after', String(retryAfter));
      sendJson(response, 429, { error: `too many requests: try again in ${retryAfter} s` });
      return true;
    }
    inFlight.begin(response);
    // allowCrossOrigin's headers with the JSON ones in one list: nothing is set on the response before writeHead.
    response.writeHead(200, [...crossOrigin, 'content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(text))]);
    response.end(text);
    return true;
  };

  const sockets = options.sockets;
  const server = createServer(
    sockets
      ? {
          headersTimeout: sockets.headersTimeoutMs,
          requestTimeout: sockets.requestTimeoutMs,
          // Node checks both timeouts on this interval (30 s by default): a slow-header socket would live that much
          // longer. headersTimeout also covers a socket that sends nothing at all (its clock starts on connect).
          connectionsCheckingInterval: Math.max(250, Math.min(sockets.headersTimeoutMs, sockets.requestTimeoutMs) / 4),
        }
      : {},
    (request, response) => {
      const started = process.hrtime.bigint();
      const route = { name: 'unmatched' };
      if (options.observe) {
        const observe = options.observe;
        response.once('finish', () =>
          observe(request.method ?? 'GET', route.name, response.statusCode, Number(process.hrtime.bigint() - started) / 1e9),
        );
      }
      if (keptReads && request.method === 'GET' && !inFlight.closing && answerKept(request, response, route)) return;
      handle(request, response, route).catch((error) => {
        logger.error('request handling crashed', { error: (error as Error).stack ?? String(error) });
        if (!response.headersSent) sendJson(response, 500, { error: 'internal error' });
        else response.destroy();
      });
    },
  );
  server.keepAliveTimeout = 5_000;
  if (sockets && sockets.maxConnections > 0) server.maxConnections = sockets.maxConnections;
  if (limiter) server.on('close', () => limiter.close());
  inFlightOf.set(server, inFlight);
  return server;
}

/** How long stopping a server waits for the requests it is answering before it cuts their connections. */
export const STOP_GRACE_MS = 10_000;

/**
 * Stops accepting and waits until the server is closed. A server made by createHttpServer first answers the JSON
 * requests in flight (their connections close after the answer; idle keep-alive connections close at once), for
 * at most `graceMs`; then every connection left (streams, keep-alive clients, which would hold close() forever)
 * is dropped. Other servers drop their connections at once.
 */
export async function stopServer(server: Server, graceMs = STOP_GRACE_MS): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const inFlight = inFlightOf.get(server);
  if (inFlight) {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([inFlight.drain(), grace]);
    clearTimeout(timer);
  }
  server.closeAllConnections();
  await closed;
}

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
