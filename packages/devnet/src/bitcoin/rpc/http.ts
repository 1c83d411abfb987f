// Bitcoin Core's JSON-RPC over HTTP, for any method table: POST only, basic auth (401 on wrong credentials),
// /wallet/<name> paths, JSON-RPC 1.0 replies (errors with HTTP 500/404/400) and 2.0 replies (always HTTP 200),
// batches as arrays. Methods may return promises (the Elements node verifies asynchronously). Answers are written as
// Core writes them (amounts with 8 decimals: common/rpc-json.ts) and each call is shown to the contract observer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { observeExchange, type NodeExchange } from '../../contract-observer.ts';
import { writeRpcJson } from '../../common/rpc-json.ts';
import { RpcFailure, RPC_INTERNAL_ERROR, RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND, RPC_PARSE_ERROR } from './errors.ts';
import { bindParams, type MethodTable } from './params.ts';

/** Core's limit on an HTTP request body (MAX_SIZE). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface JsonRpcServerOptions<C> {
  methods: MethodTable<C>;
  /** The context a call runs with; uriWallet is the /wallet/<name> of the request's path. */
  context(uriWallet: string | undefined): C;
  /** Runs after the arguments are bound, before the method (e.g. Core's wallet resolution comes first). */
  beforeRun?(method: string, args: unknown[], ctx: C): void;
  user: string;
  password: string;
  host: string;
  port: number;
  /** How the contract observer names this server's exchanges (none: not observed). */
  observed?: { face: NodeExchange['face']; node: string };
}

interface RpcReply {
  status: number;
  body: unknown;
}

type Route = string | undefined;

async function execute<C>(request: unknown, options: JsonRpcServerOptions<C>, uriWallet: Route): Promise<{ result?: unknown; error?: RpcFailure }> {
  try {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      throw new RpcFailure(RPC_INVALID_REQUEST, 'Invalid Request object');
    }
    const { method, params } = request as { method?: unknown; params?: unknown };
    if (method === undefined) throw new RpcFailure(RPC_INVALID_REQUEST, 'Missing method');
    if (typeof method !== 'string') throw new RpcFailure(RPC_INVALID_REQUEST, 'Method must be a string');
    if (params !== undefined && params !== null && typeof params !== 'object') {
      throw new RpcFailure(RPC_INVALID_REQUEST, 'Params must be an array or object');
    }
    const definition = Object.hasOwn(options.methods, method) ? options.methods[method] : undefined;
    if (!definition) throw new RpcFailure(RPC_METHOD_NOT_FOUND, 'Method not found');
    const args = bindParams(method, definition, params);
    const ctx = options.context(uriWallet);
    options.beforeRun?.(method, args, ctx);
    return { result: await definition.run(args, ctx) };
  } catch (error) {
    if (error instanceof RpcFailure) return { error };
    return { error: new RpcFailure(RPC_INTERNAL_ERROR, error instanceof Error ? error.message : String(error)) };
  }
}

async function reply<C>(request: unknown, options: JsonRpcServerOptions<C>, uriWallet: Route): Promise<RpcReply | undefined> {
  const id = typeof request === 'object' && request !== null && 'id' in request ? (request as { id: unknown }).id : null;
  const v2 = typeof request === 'object' && request !== null && (request as { jsonrpc?: unknown }).jsonrpc === '2.0';
  const { result, error } = await execute(request, options, uriWallet);
  const errorJson = error ? { code: error.code, message: error.message } : null;
  let answer: RpcReply | undefined;
  if (v2) {
    // A JSON-RPC 2.0 notification (no id) gets no reply.
    const notification = !(typeof request === 'object' && request !== null && 'id' in request);
    answer = notification ? undefined : { status: 200, body: error ? { jsonrpc: '2.0', error: errorJson, id } : { jsonrpc: '2.0', result, id } };
  } else {
    const status = !error ? 200 : error.code === RPC_INVALID_REQUEST ? 400 : error.code === RPC_METHOD_NOT_FOUND ? 404 : 500;
    answer = { status, body: { result: error ? null : (result ?? null), error: errorJson, id } };
  }
  if (options.observed) {
    const { method, params } = (typeof request === 'object' && request !== null ? request : {}) as { method?: unknown; params?: unknown };
    observeExchange({
      ...options.observed,
      method: typeof method === 'string' ? method : '',
      path: '',
      query: {},
      request: params ?? [],
      status: answer?.status ?? 204,
      // the answer as a client reads it off the wire
      response: answer ? JSON.parse(writeRpcJson(answer.body)) : undefined,
    });
  }
  return answer;
}

async function handleBody<C>(text: string, options: JsonRpcServerOptions<C>, uriWallet: Route): Promise<RpcReply | undefined> {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    return { status: 500, body: { result: null, error: { code: RPC_PARSE_ERROR, message: 'Parse error' }, id: null } };
  }
  if (Array.isArray(request)) {
    const replies: unknown[] = [];
    // In order, one at a time, as Core runs a batch.
    for (const item of request) {
      const body = (await reply(item, options, uriWallet))?.body;
      if (body !== undefined) replies.push(body);
    }
    return { status: 200, body: replies };
  }
  return reply(request, options, uriWallet);
}

function authorized(header: string | undefined, expected: Buffer): boolean {
  if (!header?.startsWith('Basic ')) return false;
  const given = Buffer.from(Buffer.from(header.slice(6).trim(), 'base64').toString('utf8'));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function walletFromPath(url: string): { ok: boolean; wallet?: string } {
  const path = url.split('?')[0];
  if (path === '/' || path === '') return { ok: true };
  if (path.startsWith('/wallet/')) {
    try {
      return { ok: true, wallet: decodeURIComponent(path.slice('/wallet/'.length)) };
    } catch {
      return { ok: false };
    }
  }
  return { ok: false };
}

export function startJsonRpcServer<C>(options: JsonRpcServerOptions<C>): Promise<{ server: Server; url: string }> {
  const expected = Buffer.from(`${options.user}:${options.password}`);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!authorized(req.headers.authorization, expected)) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="jsonrpc"', 'Content-Length': 0 });
      res.end();
      req.resume();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { 'Content-Type': 'text/plain' });
      res.end('JSONRPC server handles only POST requests');
      req.resume();
      return;
    }
    const route = walletFromPath(req.url ?? '/');
    if (!route.ok) {
      res.writeHead(404);
      res.end();
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413);
        res.end();
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.writableEnded) return;
      void handleBody(Buffer.concat(chunks).toString('utf8'), options, route.wallet).then((answer) => {
        if (res.destroyed) return;
        if (!answer) {
          res.writeHead(204);
          res.end();
          return;
        }
        const body = writeRpcJson(answer.body) + '\n';
        res.writeHead(answer.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      resolve({ server, url: `http://${host}:${port}` });
    });
  });
}
