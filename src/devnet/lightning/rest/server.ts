// One LND-compatible REST endpoint per devnet node, on 127.0.0.1. Every request must carry a macaroon the node
// baked, granting the called method's permissions, in the Grpc-Metadata-macaroon header. Unary answers are JSON
// objects; server streams are newline-delimited `{"result": ...}` objects, as LND's gateway writes them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { GRPC, LndError } from '../errors.ts';
import type { LightningNetwork } from '../network.ts';
import type { Body } from './request.ts';
import { matchRoute } from './routes.ts';
import { authorize, matchMacaroonRoute } from './macaroon-routes.ts';
import { fullMethodOf } from './permissions.ts';
import { stopServer } from '../../../api/http/server.ts';
import { listenOn, readJsonObject, sendJson } from '../json-http.ts';

const MAX_BODY = 1 << 20;

export interface RestContext {
  network: LightningNetwork;
  node: string;
  params: string[];
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

const BODY_ERRORS = { tooLarge: 'request body too large', notJson: 'invalid JSON body', notObject: 'request body must be a JSON object' };

const readBody = (req: IncomingMessage): Promise<Body> =>
  readJsonObject(req, MAX_BODY, (problem) => new LndError(GRPC.INVALID_ARGUMENT, BODY_ERRORS[problem]));

async function handle(network: LightningNetwork, nodeName: string, req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  const match = matchMacaroonRoute(method, url.pathname) ?? matchRoute(method, url.pathname);
  try {
    // A path the gateway does not route never reaches LND's gRPC server, so no macaroon is checked for it.
    if (match === undefined) {
      sendJson(res, 404, { code: 5, message: 'Not Found', details: [] });
      return;
    }
    // Then the macaroon, with the permissions of the method the path reaches (macaroon-routes.ts).
    authorize(req, network.node(nodeName).macaroon, fullMethodOf(method, url.pathname));
    const body = req.method === 'POST' ? await readBody(req) : {};
    const ctx: RestContext = { network, node: nodeName, params: match.params, query: url.searchParams, body };
    if (match.handler.kind === 'unary') {
      sendJson(res, 200, await match.handler.run(ctx));
      return;
    }
    await runStream(match.handler.run, ctx, req, res);
  } catch (err) {
    const lnd = toLndError(err);
    if (!res.headersSent) sendJson(res, lnd.httpStatus, errorBody(lnd));
    else res.end();
  }
}

async function runStream(
  run: (ctx: RestContext, out: StreamWriter) => Promise<void>,
  ctx: RestContext,
  req: IncomingMessage,
  res: ServerResponse,
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
      if (!res.writableEnded) res.write(JSON.stringify({ result: message }) + '\n');
    },
    closed,
  };
  try {
    await run(ctx, out);
  } catch (err) {
    // Before the first message the error sets the HTTP status; after it, it arrives as the last line.
    const lnd = toLndError(err);
    if (!res.headersSent) res.writeHead(lnd.httpStatus, { 'content-type': 'application/json' });
    if (!res.writableEnded) res.write(JSON.stringify({ error: errorBody(lnd) }) + '\n');
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
