// Bitcoin Core's JSON-RPC over HTTP: POST only, basic auth (401 on wrong credentials), multiwallet paths
// /wallet/<name>, JSON-RPC 1.0 replies (errors with HTTP 500/404/400) and 2.0 replies (always HTTP 200),
// batches as arrays.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { BitcoinNode } from '../node.ts';
import type { WalletManager } from '../wallet/manager.ts';
import type { Wallet } from '../wallet/wallet.ts';
import { blockchainMethods } from './blockchain.ts';
import {
  RpcFailure,
  RPC_INTERNAL_ERROR,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_PARSE_ERROR,
  RPC_WALLET_NOT_FOUND,
  RPC_WALLET_NOT_SPECIFIED,
} from './errors.ts';
import { miningMethods } from './mining.ts';
import { bindParams, type CallContext, type MethodTable } from './params.ts';
import { rawTransactionMethods } from './rawtransactions.ts';
import { walletMethods } from './wallet.ts';

/** Core's limit on an HTTP request body (MAX_SIZE). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

const methods: MethodTable = { ...blockchainMethods, ...rawTransactionMethods, ...miningMethods, ...walletMethods };
const walletMethodNames = new Set(Object.keys(walletMethods).filter((name) => !['createwallet', 'loadwallet', 'listwallets', 'listwalletdir'].includes(name)));

export interface RpcServerOptions {
  node: BitcoinNode;
  wallets: WalletManager;
  user: string;
  password: string;
  host: string;
  port: number;
}

interface RpcReply {
  status: number;
  body: unknown;
}

function resolveWallet(wallets: WalletManager, uriWallet: string | undefined): Wallet {
  if (uriWallet !== undefined) {
    const wallet = wallets.get(uriWallet);
    if (!wallet) throw new RpcFailure(RPC_WALLET_NOT_FOUND, 'Requested wallet does not exist or is not loaded');
    return wallet;
  }
  const names = wallets.names();
  if (names.length === 1) return wallets.get(names[0])!;
  if (names.length === 0) {
    throw new RpcFailure(
      RPC_WALLET_NOT_FOUND,
      'No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)',
    );
  }
  throw new RpcFailure(RPC_WALLET_NOT_SPECIFIED, 'Wallet file not specified (must request wallet RPC through /wallet/<filename> uri-path).');
}

function execute(request: unknown, options: RpcServerOptions, uriWallet: string | undefined): { result?: unknown; error?: RpcFailure } {
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
    const definition = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!definition) throw new RpcFailure(RPC_METHOD_NOT_FOUND, 'Method not found');
    const args = bindParams(method, definition, params);
    const ctx: CallContext = {
      node: options.node,
      wallets: options.wallets,
      wallet: () => resolveWallet(options.wallets, uriWallet),
    };
    // Wallet methods fail first on a wrong or missing wallet, as in Core.
    if (walletMethodNames.has(method) && !(method === 'unloadwallet' && args[0] !== undefined)) ctx.wallet();
    return { result: definition.run(args, ctx) };
  } catch (error) {
    if (error instanceof RpcFailure) return { error };
    return { error: new RpcFailure(RPC_INTERNAL_ERROR, error instanceof Error ? error.message : String(error)) };
  }
}

function reply(request: unknown, options: RpcServerOptions, uriWallet: string | undefined): { body: unknown; status: number } | undefined {
  const id = typeof request === 'object' && request !== null && 'id' in request ? (request as { id: unknown }).id : null;
  const v2 = typeof request === 'object' && request !== null && (request as { jsonrpc?: unknown }).jsonrpc === '2.0';
  const { result, error } = execute(request, options, uriWallet);
  const errorJson = error ? { code: error.code, message: error.message } : null;
  if (v2) {
    // A JSON-RPC 2.0 notification (no id) gets no reply.
    if (!(typeof request === 'object' && request !== null && 'id' in request)) return undefined;
    return { status: 200, body: error ? { jsonrpc: '2.0', error: errorJson, id } : { jsonrpc: '2.0', result, id } };
  }
  const status = !error ? 200 : error.code === RPC_INVALID_REQUEST ? 400 : error.code === RPC_METHOD_NOT_FOUND ? 404 : 500;
  return { status, body: { result: error ? null : (result ?? null), error: errorJson, id } };
}

function handleBody(text: string, options: RpcServerOptions, uriWallet: string | undefined): RpcReply | undefined {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    return { status: 500, body: { result: null, error: { code: RPC_PARSE_ERROR, message: 'Parse error' }, id: null } };
  }
  if (Array.isArray(request)) {
    const replies = request.map((item) => reply(item, options, uriWallet)?.body).filter((body) => body !== undefined);
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

export function startRpcServer(options: RpcServerOptions): Promise<{ server: Server; url: string }> {
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
      const answer = handleBody(Buffer.concat(chunks).toString('utf8'), options, route.wallet);
      if (!answer) {
        res.writeHead(204);
        res.end();
        return;
      }
      const body = JSON.stringify(answer.body) + '\n';
      res.writeHead(answer.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
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
