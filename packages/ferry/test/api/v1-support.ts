// Ferry started in-process on its devnet (ephemeral ports, a fast chain watcher) for the v1 and referral tests,
// with the handles they need: JSON calls over real sockets, the devnet's node and user wallet, invoices and
// payments on the devnet's Lightning nodes, and a wait for a swap status seen through v1 /swapstatus.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFerry, type Ferry } from '../../src/app.ts';
import { CoreRpcClient, satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { loadConfig, type FerryConfig } from '../../src/config/index.ts';
import type { PaymentUpdate } from '../../src/lightning/backend.ts';
import { LndRestClient } from '../../src/lightning/lnd/client.ts';
import { createLogger } from '../../src/log/index.ts';
import { ephemeralPorts } from '../helpers/ports.ts';
import { ferryConfigLightningEnv } from '../helpers/test-lightning.ts';

export interface Answer {
  status: number;
  json: any;
}

export interface V1World {
  ferry: Ferry;
  rpc: CoreRpcClient;
  user: CoreRpcClient;
  /** Ferry's log lines at warn and above: a failed request (500) shows up here. */
  log: string[];
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  invoice(node: 'alice' | 'bob', sat: number): Promise<{ invoice: string; paymentHash: string }>;
  pay(node: 'alice' | 'bob', invoice: string): Promise<PaymentUpdate>;
  /** Sends `sat` from the user wallet to an address; returns the txid. */
  fund(address: string, sat: number): Promise<string>;
  mine(blocks?: number): Promise<void>;
  /** Polls v1 /swapstatus until the status is one of `statuses`, mining a block now and then when asked to. */
  waitForStatus(id: string, statuses: string[], options?: { mine?: boolean; timeoutMs?: number }): Promise<any>;
  /** Follows the swap over v1 SSE (/streamswapstatus) until closed. */
  statusStream(id: string): StatusStream;
  close(): Promise<void>;
}

export interface StatusStream {
  received: { status: string; transaction?: { id: string; hex?: string } }[];
  statuses(): string[];
  close(): Promise<void>;
}

/** The v1 status stream of a swap: every status object received, until closed. */
export function statusStream(apiUrl: string, id: string): StatusStream {
  const controller = new AbortController();
  const received: { status: string; transaction?: { id: string; hex?: string } }[] = [];
  const opened = fetch(`${apiUrl}/streamswapstatus?id=${id}`, { signal: controller.signal }).then(async (response) => {
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type')!, /^text\/event-stream/);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          for (const line of buffer.slice(0, end).split('\n')) if (line.startsWith('data: ')) received.push(JSON.parse(line.slice(6)));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by close()
    }
  });
  return {
    received,
    statuses: () => received.map((update) => update.status),
    close: async () => {
      controller.abort();
      await opened.catch(() => {});
    },
  };
}

export async function startV1World(env: Record<string, string> = {}, adjust?: (config: FerryConfig) => void): Promise<V1World> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-v1-'));
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts, ...ferryConfigLightningEnv(), ...env } });
  config.bitcoin.pollIntervalMs = 100;
  adjust?.(config);
  const log: string[] = [];
  const ferry = await startFerry(config, createLogger({ level: 'warn', json: true, write: (line) => log.push(line) }));
  const info = ferry.devnet!.info;
  const rpc = new CoreRpcClient({ url: info.bitcoin.rpcUrl, user: info.bitcoin.rpcUser, password: info.bitcoin.rpcPassword });
  const user = rpc.wallet(info.bitcoin.wallets.user);
  const lnd = (name: string) => new LndRestClient({ url: info.lightning[name].restUrl, macaroon: info.lightning[name].macaroon });

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const response = await fetch(ferry.apiUrl + path, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, json: JSON.parse(await response.text()) };
  };
  const mine = async (blocks = 1) => {
    await rpc.generateToAddress(blocks, await user.getNewAddress());
  };

  return {
    ferry,
    rpc,
    user,
    log,
    call,
    async invoice(node, sat) {
      const response = await fetch(info.lightning[node].restUrl + '/v1/invoices', {
        method: 'POST',
        headers: { 'Grpc-Metadata-macaroon': info.lightning[node].macaroon, 'content-type': 'application/json' },
        body: JSON.stringify({ value: String(sat), memo: 'v1 test' }),
      });
      const body = (await response.json()) as { payment_request: string; r_hash: string };
      return { invoice: body.payment_request, paymentHash: Buffer.from(body.r_hash, 'base64').toString('hex') };
    },
    pay: (node, invoice) => lnd(node).payInvoice({ paymentRequest: invoice, feeLimitMsat: 10_000_000n, timeoutSeconds: 60 }),
    fund: (address, sat) => user.sendToAddress(address, satToBtc(sat)),
    mine,
    async waitForStatus(id, statuses, options = {}) {
      const deadline = Date.now() + (options.timeoutMs ?? 15_000);
      let last: Answer | undefined;
      for (let round = 1; Date.now() < deadline; round++) {
        last = await call('POST', '/swapstatus', { id });
        if (last.status === 200 && statuses.includes(last.json.status)) return last.json;
        if (options.mine && round % 5 === 0) await mine();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`swap ${id} never reached ${statuses.join(' / ')}; last answer ${JSON.stringify(last)}; log ${log.join('\n')}`);
    },
    statusStream: (id) => statusStream(ferry.apiUrl, id),
    async close() {
      await ferry.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Log lines of requests that failed inside Ferry (answered 500). */
export const failedRequests = (log: string[]) => log.filter((line) => /request failed|request handling crashed/.test(line));
