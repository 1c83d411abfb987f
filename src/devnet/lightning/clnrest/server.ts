// One clnrest-compatible endpoint for a devnet CLN node: `POST /v1/<method>` with the method's named parameters
// as a JSON object and the node's rune in the `Rune` header; answers 201 with the method's result, or the
// JSON-RPC error object with clnrest's status (403 no rune, 401 bad rune, 404 unknown method, 500 otherwise).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stopServer } from '../../../api/http/server.ts';
import type { LightningNetwork } from '../network.ts';
import { CLN, ClnError, toClnError } from './errors.ts';
import { HOLD_METHODS } from './hold.ts';
import { LIGHTNINGD_METHODS, type Method } from './lightningd.ts';
import type { Params } from './params.ts';
import { OFFER_METHODS } from './offers.ts';
import { pay } from './pay.ts';
import { checkRune } from './rune.ts';
import type { RestServer } from '../rest/server.ts';

const MAX_BODY = 1 << 20;
const METHODS: Record<string, Method> = { ...LIGHTNINGD_METHODS, pay, ...OFFER_METHODS, ...HOLD_METHODS };

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readParams(req: IncomingMessage): Promise<Params> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ClnError(CLN.LIGHTNINGD, 'request body too large');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  const text = Buffer.concat(chunks).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ClnError(CLN.LIGHTNINGD, `Could not parse \`${text}\` as JSON request`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ClnError(CLN.LIGHTNINGD, `Could not parse \`${text}\` as JSON request`);
  }
  return parsed as Params;
}

async function handle(network: LightningNetwork, node: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  const match = /^\/v1\/([a-z0-9_-]+)$/.exec(path);
  try {
    if (req.method !== 'POST' || match === null) {
      sendJson(res, 404, { code: CLN.METHOD_NOT_FOUND, message: `Path ${path} not found` });
      return;
    }
    const params = await readParams(req);
    const header = req.headers.rune;
    checkRune(Array.isArray(header) ? header[0] : header, network.node(node).secretKey);
    const method = METHODS[match[1]];
    if (method === undefined) throw new ClnError(CLN.METHOD_NOT_FOUND, `Unknown command '${match[1]}'`, 404);
    sendJson(res, 201, await method({ network, node, params }));
  } catch (err) {
    const cln = toClnError(err);
    sendJson(res, cln.httpStatus, { code: cln.code, message: cln.message, ...(cln.data && { data: cln.data }) });
  }
}

export async function startClnRestServer(network: LightningNetwork, node: string, host: string, port: number): Promise<RestServer> {
  const server: Server = createServer((req, res) => {
    handle(network, node, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return { url: `http://${host}:${bound}`, port: bound, close: () => stopServer(server) };
}
