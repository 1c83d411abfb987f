// One clnrest-compatible endpoint for a devnet CLN node: `POST /v1/<method>` with the method's named parameters
// as a JSON object and the node's rune in the `Rune` header; answers 201 with the method's result, or the
// JSON-RPC error object with clnrest's status (403 no rune, 401 bad rune, 404 unknown method, 500 otherwise).
// Exactly lightningd's methods and the hold plugin's are registered; a lightningd method refuses a parameter name it
// does not take (param-names.ts). Answers are written as lightningd writes them: u64s past 2^53 as bare integers
// (lossless-json's stringify writes a bigint so). Every exchange is shown to the contract observer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { stopServer } from '../../common/stop-server.ts';
import { stringify } from 'lossless-json';
import { observeExchange } from '../../contract-observer.ts';
import { listenOn, readJsonObject } from '../json-http.ts';
import type { LightningNetwork } from '../network.ts';
import { CLN, ClnError, toClnError } from './errors.ts';
import { GOSSIP_METHODS } from './gossip.ts';
import { HOLD_METHODS } from './hold.ts';
import { LIGHTNINGD_METHODS, type Method } from './lightningd.ts';
import type { Params } from './params.ts';
import { OFFER_METHODS } from './offers.ts';
import { checkParamNames } from './param-names.ts';
import { joinOnionMessages } from './onion-messages.ts';
import { pay } from './pay.ts';
import { checkRune } from './rune.ts';
import type { RestServer } from '../rest/server.ts';

const MAX_BODY = 1 << 20;
const METHODS: Record<string, Method> = { ...LIGHTNINGD_METHODS, ...GOSSIP_METHODS, pay, ...OFFER_METHODS, ...HOLD_METHODS };

const readParams = (req: IncomingMessage): Promise<Params> =>
  readJsonObject(req, MAX_BODY, (problem, text) =>
    new ClnError(CLN.LIGHTNINGD, problem === 'tooLarge' ? 'request body too large' : `Could not parse \`${text.slice(0, 200)}\` as JSON request`),
  );

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = stringify(body) ?? '';
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function handle(network: LightningNetwork, node: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  const match = /^\/v1\/([a-z0-9_-]+)$/.exec(path);
  let params: Params | undefined;
  const answer = (status: number, body: unknown): void => {
    send(res, status, body);
    if (match !== null) observeExchange({ face: 'clnrest', node, method: match[1], path: '', query: {}, request: params ?? {}, status, response: body });
  };
  try {
    if (req.method !== 'POST' || match === null) {
      send(res, 404, { code: CLN.METHOD_NOT_FOUND, message: `Path ${path} not found` });
      return;
    }
    params = await readParams(req);
    const header = req.headers.rune;
    checkRune(Array.isArray(header) ? header[0] : header, network.node(node).secretKey);
    const method = METHODS[match[1]];
    if (method === undefined) throw new ClnError(CLN.METHOD_NOT_FOUND, `Unknown command '${match[1]}'`, 404);
    checkParamNames(match[1], params);
    answer(201, await method({ network, node, params }));
  } catch (err) {
    const cln = toClnError(err);
    answer(cln.httpStatus, { code: cln.code, message: cln.message, ...(cln.data && { data: cln.data }) });
  }
}

export async function startClnRestServer(network: LightningNetwork, node: string, host: string, port: number): Promise<RestServer> {
  joinOnionMessages(network, node);
  const server: Server = createServer((req, res) => {
    handle(network, node, req, res).catch(() => res.destroy());
  });
  const { url, port: bound } = await listenOn(server, host, port);
  return { url, port: bound, close: () => stopServer(server) };
}
