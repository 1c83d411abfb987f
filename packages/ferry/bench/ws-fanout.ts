// WebSocket fan-out and idle memory of a real Ferry (its API server, WebSocket server and status feed, on the
// devnet engine), clients in a separate process (ws-fanout-clients.ts). Fan-out: FANOUT_CLIENTS (5,000) clients
// subscribe one swap; one status change is published into the feed (as the PostgreSQL relay of another
// instance does) and each client's receipt time is taken against it; then a real change — the engine sets a swap's
// invoice (a transition written to SQLite), pushed by Ferry's own API. Idle memory: this process's RSS before and
// after IDLE_CLIENTS (10,000) clients connect. Baseline, same run: a bare `ws` server broadcasting one message.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { WebSocketServer } from 'ws';
import { startFerry, type Ferry } from '../src/app.ts';
import { createApiServer } from '../src/api/index.ts';
import { limitsFromConfig } from '../src/api/limits/from-config.ts';
import { loadConfig } from '../src/config/index.ts';
import { StatusFeed } from '../src/events/index.ts';
import { silentLogger } from '../src/log/index.ts';
import { generateSwapId } from '../src/swaps/ids.ts';
import { ephemeralPorts } from '../test/helpers/ports.ts';

const FANOUT_CLIENTS = Number(process.env.FANOUT_CLIENTS ?? 5_000);
const IDLE_CLIENTS = Number(process.env.IDLE_CLIENTS ?? 10_000);
const script = fileURLToPath(new URL('./ws-fanout-clients.ts', import.meta.url));
const now = () => performance.timeOrigin + performance.now();

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
async function rss(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return process.memoryUsage().rss;
}

interface Clients {
  child: ChildProcess;
  next(): Promise<string>;
  close(): Promise<void>;
}

/** Starts the client process and waits until its clients are connected (and subscribed to `id`, if given). */
async function clients(url: string, count: number, id?: string, status?: string): Promise<Clients> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, url, String(count), ...(id ? [id] : []), ...(status ? [status] : [])], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const next = async () => {
    const line = await Promise.race([lines.next(), exited.then(() => ({ done: true, value: '' }))]);
    if (line.done) throw new Error('the client process exited');
    return line.value as string;
  };
  if ((await next()) !== 'ready') throw new Error('the client process did not get ready');
  return { child, next, close: async () => void (child.stdin!.end(), await exited) };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The baseline: a bare `ws` server; `publish` sends one serialized message to every client. */
async function bareServer(): Promise<{ url: string; publish: (message: string) => void; close: () => Promise<void> }> {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  const url = await listen(server);
  return {
    url,
    publish: (message) => wss.clients.forEach((ws) => ws.send(message)),
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      await new Promise((done) => wss.close(done));
      await new Promise((done) => server.close(done));
    },
  };
}

/** Ferry on its in-process devnet, plus a second API server on the same engine whose status feed we hold. */
async function ferryWithFeed(dataDir: string): Promise<{ ferry: Ferry; feed: StatusFeed; url: string; server: Server }> {
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts } });
  Object.assign(config.limits, { wsConnectionsPerIp: 0, wsMessagesPerMinute: 0, maxConnections: 0 });
  const ferry = await startFerry(config, silentLogger);
  const feed = new StatusFeed();
  const server = createApiServer({
    chains: ferry.chains,
    evm: ferry.evm,
    lightning: ferry.lightning,
    swaps: ferry.swaps,
    logger: silentLogger,
    maxBodyBytes: config.api.maxBodyBytes,
    limits: limitsFromConfig(config),
    statusFeed: feed,
  });
  return { ferry, feed, server, url: (await listen(server)) + '/v2/ws' };
}

/** A submarine swap created for a hash whose invoice (of the devnet's alice) is set later: the change to time. */
async function pendingSubmarine(ferry: Ferry): Promise<{ id: string; invoice: string }> {
  const alice = ferry.devnet!.info.lightning.alice;
  const response = await fetch(`${alice.restUrl}/v1/invoices`, {
    method: 'POST',
    headers: { 'Grpc-Metadata-macaroon': alice.macaroon, 'content-type': 'application/json' },
    body: JSON.stringify({ value: '20000', memo: 'fan-out bench' }),
  });
  const body = (await response.json()) as { payment_request: string; r_hash: string };
  const preimageHash = Buffer.from(body.r_hash, 'base64').toString('hex');
  const refundPublicKey = Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)).toString('hex');
  const created = await ferry.swaps!.createSubmarine({ from: 'BTC', to: 'BTC', preimageHash, refundPublicKey });
  return { id: created.id, invoice: body.payment_request };
}

type Latency = { p50: number; p99: number; max: number };
const ms = ({ p50, p99, max }: Latency) => `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`;

/** `id`: subscribe each client to it (Ferry); none for the bare server, which sends to every client anyway. */
async function fanOut(url: string, id: string | undefined, publish: () => void, status?: string): Promise<Latency> {
  const load = await clients(url, FANOUT_CLIENTS, id, status);
  try {
    await new Promise((resolve) => setTimeout(resolve, 500)); // let the subscriptions' snapshots settle
    const t0 = now();
    publish();
    load.child.stdin!.write(`T0 ${t0}\n`);
    return JSON.parse(await load.next()) as Latency;
  } finally {
    await load.close();
  }
}

async function idleRss(url: string): Promise<number> {
  const before = await rss();
  const load = await clients(url, IDLE_CLIENTS);
  const after = await rss();
  await load.close();
  return (after - before) / IDLE_CLIENTS;
}

async function withServers<T>(run: (ferry: Awaited<ReturnType<typeof ferryWithFeed>>, bare: Awaited<ReturnType<typeof bareServer>>) => Promise<T>): Promise<T> {
  const dataDir = await mkdtemp(join(tmpdir(), 'ferry-bench-fanout-'));
  const ferry = await ferryWithFeed(dataDir);
  const bare = await bareServer();
  try {
    return await run(ferry, bare);
  } finally {
    await bare.close();
    ferry.server.closeAllConnections();
    await new Promise((done) => ferry.server.close(done));
    await ferry.ferry.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export const benchWsFanout = () =>
  withServers(async (ferry, bare) => {
    const id = generateSwapId();
    const status = { status: 'transaction.mempool' };
    const message = JSON.stringify({ event: 'update', channel: 'swap.update', args: [{ id, ...status }], timestamp: Date.now().toString() });
    const base = await fanOut(bare.url, undefined, () => bare.publish(message));
    const ours = await fanOut(ferry.url, id, () => ferry.feed.publish(id, status));
    // A real status change: the engine sets a submarine swap's invoice (a database transition), its own API pushes it.
    const swap = await pendingSubmarine(ferry.ferry);
    const real = await fanOut(ferry.ferry.apiUrl.replace(/^http/, 'ws') + '/v2/ws', swap.id, () => void ferry.ferry.swaps!.setSubmarineInvoice(swap.id, swap.invoice), 'invoice.set');
    return [
      `one status change to ${FANOUT_CLIENTS.toLocaleString('en')} subscribers of one swap (clients in another process), publish -> receipt:`,
      `Ferry (status feed -> WebSocket connections): ${ms(ours)}`,
      `Ferry, a real change (setSubmarineInvoice: engine transition in SQLite -> invoice.set pushed): ${ms(real)}`,
      `baseline (bare ws server, one serialized message broadcast): ${ms(base)}`,
    ];
  });

export const benchWsIdle = () =>
  withServers(async (ferry, bare) => {
    // bare first: RSS seldom shrinks back, so what the baseline leaves is not charged to Ferry
    const base = await idleRss(bare.url);
    const ours = await idleRss(ferry.url);
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    return [
      `${IDLE_CLIENTS.toLocaleString('en')} idle WebSocket clients (another process); server RSS (after - before) / clients, after GC:`,
      `Ferry: ${kb(ours)} per client; baseline (bare ws server, same process, measured first): ${kb(base)} per client`,
    ];
  });
