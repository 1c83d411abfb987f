// One LND-compatible REST endpoint per devnet node, on 127.0.0.1, in the order LND's gateway works: route the
// path (404 code 5 "Not Found" when no operation has it, 501 code 12 "Method Not Allowed" when only another method
// does), decode path, query and body (400 code 3 in grpc-gateway's and protojson's words), then the gRPC side checks
// the macaroon (Grpc-Metadata-macaroon header: one this node baked, granting the method's permissions) and runs the call. Unary answers are JSON objects; server streams are
// newline-delimited `{"result": ...}` objects, an error `{"error": ...}`. Every exchange is shown to the contract
// observer (src/devnet/contract-observer.ts): each unary answer, each stream message and each error.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { GRPC, LndError } from '../errors.ts';
import type { LightningNetwork } from '../network.ts';
import { parseParam, type Body } from './request.ts';
import { matchRoute, type Route } from './routes.ts';
import { decodeBody } from './protojson.ts';
import { observeExchange, queryOf } from '../../contract-observer.ts';
import { authorize } from './macaroon-routes.ts';
import { fullMethodOf } from './permissions.ts';
import { stopServer } from '../../common/stop-server.ts';
import { listenOn, sendJson } from '../json-http.ts';

const MAX_BODY = 1 << 20;
// A test that sends what LND's contract forbids, to see it refused, says so (and why) in this header; the contract
// checker then judges only the answer.
export const PROBE_HEADER = 'x-ferry-contract-probe';

export interface RestContext {
  network: LightningNetwork;
  node: string;
  args: Record<string, string | undefined>; // the route's path and query parameters, decoded (bytes as hex)
  query: URLSearchParams;
  body: Body;
}

// A stream handler writes messages with `send` and resolves when the stream is over. `closed` resolves when
// the client goes away, so handlers can stop waiting.
export interface StreamWriter {
  send(message: unknown): void;
  closed: Promise<void>;
}

export type Handler =
  | { kind: 'unary'; run: (ctx: RestContext) => Promise<unknown> | unknown }
  | { kind: 'stream'; run: (ctx: RestContext, out: StreamWriter) => Promise<void> };

function errorBody(err: LndError): { code: number; message: string; details: [] } {
  return { code: err.code, message: err.message, details: [] };
}

function toLndError(err: unknown): LndError {
  return err instanceof LndError ? err : new LndError(GRPC.UNKNOWN, (err as Error).message ?? String(err));
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new LndError(GRPC.INVALID_ARGUMENT, 'request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

// The route's declared path and query parameters, parsed as grpc-gateway does; query parameters the operation does
// not have are ignored, as the gateway ignores them.
function argsOf(route: Route, path: Record<string, string>, query: URLSearchParams): Record<string, string | undefined> {
  const args: Record<string, string | undefined> = {};
  for (const [name, kind] of Object.entries(route.params ?? {})) {
    if (name in path) args[name] = parseParam(name, path[name], kind, 'path');
    else {
      const values = query.getAll(name);
      if (values.length > 1) throw new LndError(GRPC.INVALID_ARGUMENT, `too many values for field "${name}": ${values.join(', ')}`);
      if (values.length === 1) args[name] = parseParam(name, values[0], kind, 'query');
    }
  }
  return args;
}

async function handle(network: LightningNetwork, nodeName: string, req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  let requestBody: unknown;
  const observe = (status: number, response: unknown, stream?: boolean): void =>
    observeExchange({
      face: 'lnd-rest',
      node: nodeName,
      method,
      path: url.pathname,
      query: queryOf(url.searchParams),
      request: requestBody,
      status,
      response,
      ...(stream === true ? { stream } : {}),
      ...(typeof req.headers[PROBE_HEADER] === 'string' ? { probe: req.headers[PROBE_HEADER] } : {}),
    });
  const answer = (status: number, body: unknown): void => {
    observe(status, JSON.parse(JSON.stringify(body)) as unknown);
    sendJson(res, status, body);
  };
  try {
    const match = matchRoute(method, url.pathname);
    if (match === undefined) return answer(404, { code: GRPC.NOT_FOUND, message: 'Not Found', details: [] });
    if (match === 'method-not-allowed') {
      return answer(501, { code: GRPC.UNIMPLEMENTED, message: 'Method Not Allowed', details: [] });
    }
    const { route } = match;
    let body: Body = {};
    if (route.body !== undefined) {
      const text = await readText(req);
      try {
        requestBody = text.trim() === '' ? undefined : JSON.parse(text);
      } catch {
        requestBody = text;
      }
      body = decodeBody(text, route.body);
    }
    const args = argsOf(route, match.path, url.searchParams);
    // the gRPC side: a macaroon this node baked, granting the permissions of the method the path reaches
    authorize(req, network.node(nodeName).macaroon, fullMethodOf(method, url.pathname));
    const ctx: RestContext = { network, node: nodeName, args, query: url.searchParams, body };
    if (route.handler.kind === 'unary') return answer(200, await route.handler.run(ctx));
    await runStream(route.handler.run, ctx, req, res, observe);
  } catch (err) {
    const lnd = toLndError(err);
    if (!res.headersSent) answer(lnd.httpStatus, errorBody(lnd));
    else res.end();
  }
}

async function runStream(
  run: (ctx: RestContext, out: StreamWriter) => Promise<void>,
  ctx: RestContext,
  req: IncomingMessage,
  res: ServerResponse,
  observe: (status: number, response: unknown, stream: boolean) => void,
): Promise<void> {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  res.on('close', () => resolveClosed());
  req.on('close', () => {
    if (!res.writableFinished) resolveClosed();
  });
  const out: StreamWriter = {
    send(message) {
      if (!res.headersSent) res.writeHead(200, { 'content-type': 'application/json' });
      if (res.writableEnded) return;
      // JSON round trip: what the client reads, not the handler's object (which may change after this).
      const line = JSON.stringify({ result: message });
      observe(200, JSON.parse(line), true);
      res.write(line + '\n');
    },
    closed,
  };
  try {
    await run(ctx, out);
  } catch (err) {
    // Before the first message the gRPC answer is trailers-only, and the gateway writes a plain error body (its
    // stream.Header() fails); after it, the error arrives as the stream's last line.
    const lnd = toLndError(err);
    if (!res.headersSent) {
      observe(lnd.httpStatus, errorBody(lnd), false);
      sendJson(res, lnd.httpStatus, errorBody(lnd));
      return;
    }
    if (!res.writableEnded) {
      observe(res.statusCode, { error: errorBody(lnd) }, true);
      res.write(JSON.stringify({ error: errorBody(lnd) }) + '\n');
    }
  }
  if (!res.writableEnded) res.end();
}

export interface RestServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startRestServer(
  network: LightningNetwork,
  nodeName: string,
  host: string,
  port: number,
): Promise<RestServer> {
  const server: Server = createServer((req, res) => {
    handle(network, nodeName, req, res).catch(() => res.destroy());
  });
  const { url, port: bound } = await listenOn(server, host, port);
  return {
    url,
    port: bound,
    close: () => stopServer(server),
  };
}
