// Shared setup for the Lightning tests: a devnet in a fresh directory and raw REST calls as a wallet makes them.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClockChain, startLightningDevnet, type LightningDevnet, type LightningNodeInfo } from '@ferry/devnet/lightning/index.js';

export function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-ln-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// One connection per call (no keep-alive), so a devnet restarted on the same port is reached afresh.
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export async function rest<T = Record<string, unknown>>(
  node: LightningNodeInfo,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  macaroon = node.macaroon,
  probe?: string, // a deliberate breach of LND's contract, and why (the contract checker then judges the answer only)
): Promise<{ status: number; body: T }> {
  const res = await rawRequest(
    node.restUrl + path,
    method,
    {
      'Grpc-Metadata-macaroon': macaroon,
      'content-type': 'application/json',
      ...(probe === undefined ? {} : { 'x-ferry-contract-probe': probe }),
    },
    body === undefined ? undefined : JSON.stringify(body),
  );
  return { status: res.status, body: JSON.parse(res.text.split('\n')[0]) as T };
}

// Reads a streaming response line by line until `stop` says enough, then hangs up.
export function readStream(
  url: string,
  options: { method?: string; macaroon: string; body?: unknown; probe?: string },
  stop: (messages: Record<string, unknown>[]) => boolean,
): Promise<{ status: number; messages: Record<string, unknown>[] }> {
  return new Promise((resolve, reject) => {
    const messages: Record<string, unknown>[] = [];
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        headers: {
          'Grpc-Metadata-macaroon': options.macaroon,
          ...(options.probe === undefined ? {} : { 'x-ferry-contract-probe': options.probe }),
        },
        agent: false,
      },
      (res) => {
        let buffer = '';
        const finish = () => {
          resolve({ status: res.statusCode ?? 0, messages });
          req.destroy();
        };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let i: number;
          while ((i = buffer.indexOf('\n')) >= 0) {
            messages.push(JSON.parse(buffer.slice(0, i)) as Record<string, unknown>);
            buffer = buffer.slice(i + 1);
          }
          if (stop(messages)) finish();
        });
        res.on('end', finish);
        res.on('error', () => finish());
      },
    );
    req.on('error', (err) => (messages.length > 0 ? undefined : reject(err)));
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export async function localBalanceSat(node: LightningNodeInfo): Promise<number> {
  const { body } = await rest<{ local_balance: { sat: string } }>(node, 'GET', '/v1/balance/channels');
  return Number(body.local_balance.sat);
}

export async function waitUntil(check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A clnrest call as any client makes it: POST /v1/<method>, the params as JSON, the rune (null: none) in `Rune`. */
export async function clnRest<T = any>(
  node: { restUrl: string; rune: string },
  method: string,
  params: unknown = {},
  rune: string | null = node.rune,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${node.restUrl}/v1/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(rune !== null && { Rune: rune }) },
    body: JSON.stringify(params),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** Two CLN nodes with one channel between them (cln's side 5M sat of 10M), on a clock chain: BOLT12 between nodes. */
export async function startClnPair(): Promise<LightningDevnet> {
  const dataDir = freshDir();
  return startLightningDevnet({
    dataDir,
    chain: new ClockChain(100, `${dataDir}/clock.json`),
    clnNodes: ['cln', 'carol'],
    channels: [{ from: 'cln', to: 'carol', capacitySat: 10_000_000, pushSat: 5_000_000 }],
  });
}
