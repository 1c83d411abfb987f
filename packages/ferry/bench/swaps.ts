// Swap creation by type, Liquid and chain swaps next to Bitcoin submarine and reverse ones, with an IN-PROCESS fetch
// client: Ferry, the bare node:http baseline and the client share this process, so every figure pays the client's
// cost and the ratios to bare hide Ferry's own (issue 28). Only the relative figures between types mean something
// here; absolute rates and CPU per request come from a separate load process (creation.ts, status-reads.ts).
// The devnet (Bitcoin node, Lightning nodes) runs as its own process, as real daemons would.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { startFerry, type Ferry } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { readDevnetInfo, type DevnetInfo } from '@ferry/devnet/index.js';
import { silentLogger } from '../src/log/index.ts';
import { devnetNodesEnv, runFerry } from '../test/helpers/ferry-process.ts';
import { ephemeralPorts } from '../test/helpers/ports.ts';

const CONCURRENCY = 16;
const ROUNDS = 4;
const CREATE_N = 400; // per swap type, over all rounds
const WARMUP = 200;

type Request = (i: number) => Promise<Response>;

/** The one client loop: requests first..first+n-1, at most CONCURRENCY in flight; returns the seconds taken. */
async function load(first: number, n: number, status: number, request: Request): Promise<number> {
  let next = first;
  const worker = async () => {
    while (next < first + n) {
      const i = next++;
      const response = await request(i);
      const body = await response.text();
      if (response.status !== status) throw new Error(`request ${i} answered ${response.status}: ${body.slice(0, 200)}`);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (performance.now() - start) / 1000;
}

interface Comparison {
  perSecond: number;
  baselinePerSecond: number;
}

/**
 * Target and baseline take turns, ROUNDS times, n/ROUNDS requests each: whatever else the machine does (the
 * devnet process, Ferry's background work) weighs on both alike.
 */
async function compare(n: number, first: number, target: Request, targetStatus: number, baseline: Request): Promise<Comparison> {
  const share = Math.floor(n / ROUNDS);
  let targetSeconds = 0;
  let baselineSeconds = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const from = first + round * share;
    baselineSeconds += await load(from, share, 200, baseline);
    targetSeconds += await load(from, share, targetStatus, target);
  }
  return { perSecond: (share * ROUNDS) / targetSeconds, baselinePerSecond: (share * ROUNDS) / baselineSeconds };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The baseline: reads the request body, answers a fixed JSON object. */
async function bareServer(): Promise<{ url: string; server: Server }> {
  const body = JSON.stringify({ status: 'invoice.set' });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const hex32 = () => randomBytes(32).toString('hex');
const publicKey = () => Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)).toString('hex');

/** Alice's invoices, made before the clock starts: each submarine swap needs its own. */
async function aliceInvoices(info: DevnetInfo, n: number): Promise<string[]> {
  const alice = info.lightning.alice;
  const invoices: string[] = [];
  for (let i = 0; i < n; i++) {
    const response = await fetch(alice.restUrl + '/v1/invoices', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Grpc-Metadata-macaroon': alice.macaroon },
      body: JSON.stringify({ value: String(20_000 + i), memo: 'bench' }),
    });
    if (!response.ok) throw new Error(`alice could not make an invoice: ${await response.text()}`);
    invoices.push(((await response.json()) as { payment_request: string }).payment_request);
  }
  return invoices;
}

const relative = (a: Comparison, b: Comparison): string =>
  (a.perSecond / a.baselinePerSecond / (b.perSecond / b.baselinePerSecond)).toFixed(2);

const line = (name: string, { perSecond, baselinePerSecond }: Comparison) =>
  `${name.padEnd(44)} ${perSecond.toFixed(0).padStart(6)} req/s = ${(perSecond / baselinePerSecond).toFixed(3)} x bare node:http (${baselinePerSecond.toFixed(0)} req/s)`;

export async function benchSwaps(): Promise<string[]> {
  const devnetDir = await mkdtemp(join(tmpdir(), 'ferry-bench-devnet-'));
  const dataDir = await mkdtemp(join(tmpdir(), 'ferry-bench-swaps-'));
  const devnet = runFerry(['devnet'], { FERRY_DATA_DIR: devnetDir, ...ephemeralPorts });
  let ferry: Ferry | undefined;
  let bare: { url: string; server: Server } | undefined;
  try {
    await devnet.waitFor((entry) => entry.message === 'devnet running');
    const info = readDevnetInfo(devnetDir);
    const config = loadConfig({
      env: {
        FERRY_DATA_DIR: dataDir,
        FERRY_API_PORT: '0',
        FERRY_METRICS_PORT: '0',
        ...devnetNodesEnv(info),
      },
    });
    // throughput of the engine and the API, not of the rate limiter: one client address sends every request
    Object.assign(config.limits, { readBurst: 0, createBurst: 0, maxConnections: 0 });
    ferry = await startFerry(config, silentLogger);
    const baseline = await bareServer();
    bare = baseline;
    const api = ferry.apiUrl;
    const invoices = await aliceInvoices(info, WARMUP + CREATE_N);
    const liquidInvoices = await aliceInvoices(info, WARMUP + CREATE_N);
    // Request bodies are made before the clock starts, so the client loop costs the same for every target.
    const keys = Array.from({ length: WARMUP + CREATE_N }, publicKey);
    const reverseBodiesTo = (to: string) => keys.map((claimPublicKey) => ({ from: 'BTC', to, invoiceAmount: 50_000, preimageHash: hex32(), claimPublicKey }));
    const reverseBodies = reverseBodiesTo('BTC');
    const liquidReverseBodies = reverseBodiesTo('L-BTC');
    const submarine = (i: number) => post(`${api}/v2/swap/submarine`, { from: 'BTC', to: 'BTC', invoice: invoices[i], refundPublicKey: keys[i] });
    const reverse = (i: number) => post(`${api}/v2/swap/reverse`, reverseBodies[i]);
    // Liquid: the same calls on L-BTC/BTC (a blinded lockup address and its blinding key on top).
    const liquidSubmarine = (i: number) =>
      post(`${api}/v2/swap/submarine`, { from: 'L-BTC', to: 'BTC', invoice: liquidInvoices[i], refundPublicKey: keys[i] });
    const liquidReverse = (i: number) => post(`${api}/v2/swap/reverse`, liquidReverseBodies[i]);
    // Chain swaps BTC -> L-BTC: two outputs on two chains per swap, no Lightning call.
    const chainBodies = keys.map((key) => ({ from: 'BTC', to: 'L-BTC', userLockAmount: 100_000, preimageHash: hex32(), claimPublicKey: key, refundPublicKey: key }));
    const chain = (i: number) => post(`${api}/v2/swap/chain`, chainBodies[i]);
    const barePost = (i: number) => post(baseline.url, reverseBodies[i]);

    // warm-up of every path (JIT, connection pools, prepared statements), including the template swap
    const created = await submarine(0);
    if (created.status !== 201) throw new Error(`the template swap was not created: ${await created.text()}`);
    await load(1, WARMUP - 1, 201, submarine);
    await load(0, WARMUP, 201, reverse);
    await load(0, WARMUP, 201, liquidSubmarine);
    await load(0, WARMUP, 201, liquidReverse);
    await load(0, WARMUP, 201, chain);
    await load(0, WARMUP, 200, barePost);

    const submarines = await compare(CREATE_N, WARMUP, submarine, 201, barePost);
    const reverses = await compare(CREATE_N, WARMUP, reverse, 201, barePost);
    const liquidSubmarines = await compare(CREATE_N, WARMUP, liquidSubmarine, 201, barePost);
    const liquidReverses = await compare(CREATE_N, WARMUP, liquidReverse, 201, barePost);
    const chains = await compare(CREATE_N, WARMUP, chain, 201, barePost);
    return [
      `IN-PROCESS fetch client (${CONCURRENCY} in flight, ${ROUNDS} alternating rounds): the client's own cost caps Ferry and the bare server alike, so these ratios hide Ferry's cost; compare Liquid, chain and Bitcoin creation with each other only (absolute figures: the "creation" and "status reads" benches)`,
      line(`POST /v2/swap/submarine (${CREATE_N}, with invoice)`, submarines),
      line(`POST /v2/swap/reverse (${CREATE_N}, hold invoice)`, reverses),
      line(`POST /v2/swap/submarine L-BTC (${CREATE_N})`, liquidSubmarines),
      line(`POST /v2/swap/reverse to L-BTC (${CREATE_N})`, liquidReverses),
      line(`POST /v2/swap/chain BTC -> L-BTC (${CREATE_N})`, chains),
      `  chain / submarine (Bitcoin) creation, each relative to its baseline: ${relative(chains, submarines)}x`,
      // Each against its own bare-server rounds, so load on a shared machine cancels out of the ratio.
      `  Liquid / Bitcoin creation, each relative to its baseline: submarine ${relative(liquidSubmarines, submarines)}x, reverse ${relative(liquidReverses, reverses)}x`,
    ];
  } finally {
    if (bare) await new Promise<void>((done) => bare!.server.close(() => done()));
    await ferry?.close();
    devnet.child.kill('SIGTERM');
    await devnet.exited;
    await rm(dataDir, { recursive: true, force: true });
    await rm(devnetDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  for (const text of await benchSwaps()) console.log(text);
}
