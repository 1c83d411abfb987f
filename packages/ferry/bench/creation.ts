// Swap creation per second (issue 13: ≥ 300/s per core for submarine and reverse): `ferry start` on SQLite in its own
// process, its devnet in another, the load from a third (load/generator.ts, autocannon); next to a bare node:http
// server parsing and answering a JSON POST, in the same run, rounds taking turns so that the machine's other work
// weighs on both. Besides req/s and latency, each line gives the CPU milliseconds per request of Ferry's process and
// of the devnet's (the Lightning node making hold invoices, the Bitcoin node answering RPCs), read from /proc: on a
// shared 2-core machine 1000 / Ferry's CPU ms is its rate per core. With FERRY_BENCH_PROFILE=1 a last round of each
// type runs under the inspector's CPU profiler and the top self-time functions and modules are printed.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { cpuMeter } from './load/cpu.ts';
import { startBareServer, startDevnet, startInstance, stop, type FerryInstance } from './load/ferry.ts';
import { inspectFlag, profileWhile } from './load/inspector.ts';
import { runLoad, type LoadJob, type LoadResult } from './load/job.ts';
import { summarise } from './load/profile-summary.ts';

const ROUNDS = Number(process.env.CREATION_ROUNDS ?? 3);
const PER_ROUND = Number(process.env.CREATION_N ?? 300); // per swap type and round
const BARE_PER_ROUND = Number(process.env.CREATION_BARE_N ?? 5_000);
const CONNECTIONS = Number(process.env.CREATION_CONNECTIONS ?? 16);
const WARMUP = 100;
const PROFILE = process.env.FERRY_BENCH_PROFILE === '1';

const hex32 = () => randomBytes(32).toString('hex');
const publicKey = () => Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)).toString('hex');

/** Alice's invoices, made before any clock starts (8 at a time): each submarine swap needs its own. */
async function aliceInvoices(info: DevnetInfo, n: number): Promise<string[]> {
  const alice = info.lightning.alice;
  const invoices: string[] = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const response = await fetch(alice.restUrl + '/v1/invoices', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Grpc-Metadata-macaroon': alice.macaroon },
        body: JSON.stringify({ value: String(20_000 + i), memo: 'bench' }),
      });
      if (!response.ok) throw new Error(`alice could not make an invoice: ${await response.text()}`);
      invoices[i] = ((await response.json()) as { payment_request: string }).payment_request;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return invoices;
}

/** The request lists, cut into consecutive slices: warm-up, each timed round, the profiled round. */
function slices<T>(items: T[]): { warmup: T[]; rounds: T[][]; profiled: T[] } {
  const rounds = Array.from({ length: ROUNDS }, (_, r) => items.slice(WARMUP + r * PER_ROUND, WARMUP + (r + 1) * PER_ROUND));
  return { warmup: items.slice(0, WARMUP), rounds, profiled: items.slice(WARMUP + ROUNDS * PER_ROUND) };
}

interface Measured {
  result: LoadResult;
  /** CPU ms per request of each process metered. */
  cpuPerRequest: number[];
}

async function measured(job: LoadJob, status: number, pids: number[]): Promise<Measured> {
  const meter = cpuMeter(pids);
  const result = await runLoad(job, status);
  return { result, cpuPerRequest: meter().map((ms) => ms / result.responses) };
}

/** Totals over rounds: req/s over the summed time, the median of the rounds' p50 and the worst p99. */
function total(rounds: Measured[]): Measured & { perSecondRounds: number[] } {
  const responses = rounds.reduce((sum, m) => sum + m.result.responses, 0);
  const seconds = rounds.reduce((sum, m) => sum + m.result.seconds, 0);
  const p50s = rounds.map((m) => m.result.p50Ms).sort((a, b) => a - b);
  const cpu = rounds[0].cpuPerRequest.map((_, i) => rounds.reduce((sum, m) => sum + m.cpuPerRequest[i] * m.result.responses, 0) / responses);
  return {
    result: { responses, seconds, perSecond: responses / seconds, p50Ms: p50s[Math.floor(p50s.length / 2)], p99Ms: Math.max(...rounds.map((m) => m.result.p99Ms)), statuses: {}, generatorCpuMs: rounds.reduce((sum, m) => sum + m.result.generatorCpuMs, 0) },
    cpuPerRequest: cpu,
    perSecondRounds: rounds.map((m) => m.result.perSecond),
  };
}

function line(name: string, m: ReturnType<typeof total>, cpuNames: string[]): string {
  const { perSecond, p50Ms, p99Ms, responses } = m.result;
  const cpu = m.cpuPerRequest.map((ms, i) => `${cpuNames[i]} ${ms.toFixed(3)} ms`).join(', ');
  const rounds = m.perSecondRounds.map((r) => r.toFixed(0)).join('/');
  return `${name.padEnd(26)} ${perSecond.toFixed(0).padStart(6)} req/s (rounds ${rounds}), p50 ${p50Ms.toFixed(1)} ms, p99 ${p99Ms.toFixed(1)} ms, N=${responses}; CPU per request: ${cpu}`;
}

export async function benchCreation(): Promise<string[]> {
  const root = await mkdtemp(join(tmpdir(), 'ferry-bench-creation-'));
  const devnet = await startDevnet(join(root, 'devnet'));
  let ferry: FerryInstance | undefined;
  const bare = await startBareServer();
  try {
    ferry = await startInstance(devnet.info, {
      dataDir: join(root, 'ferry'),
      mnemonicPath: join(root, 'mnemonic'),
      ...(PROFILE && { nodeArgs: [inspectFlag] }),
    });
    const count = WARMUP + ROUNDS * PER_ROUND + (PROFILE ? PER_ROUND : 0);
    const invoices = await aliceInvoices(devnet.info, count);
    const submarines = slices(invoices.map((invoice) => ({ path: '/v2/swap/submarine', body: JSON.stringify({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: publicKey() }) })));
    const reverseBodies = Array.from({ length: count }, () => ({ from: 'BTC', to: 'BTC', invoiceAmount: 50_000, preimageHash: hex32(), claimPublicKey: publicKey() }));
    const reverses = slices(reverseBodies.map((body) => ({ path: '/v2/swap/reverse', body: JSON.stringify(body) })));
    const bareRequests = reverseBodies.slice(0, 1_000).map((body) => ({ path: '/', body: JSON.stringify(body) }));
    const job = (target: string, requests: LoadJob['requests'], amount = requests.length): LoadJob => ({ targets: [target], method: 'POST', requests, connections: CONNECTIONS, amount });

    await runLoad(job(ferry.apiUrl, submarines.warmup), 201);
    await runLoad(job(ferry.apiUrl, reverses.warmup), 201);
    await runLoad(job(bare.url, bareRequests), 201);

    const server = [ferry.pid, devnet.process.child.pid!];
    const timed = { bare: [] as Measured[], submarine: [] as Measured[], reverse: [] as Measured[] };
    for (let round = 0; round < ROUNDS; round++) {
      timed.bare.push(await measured(job(bare.url, bareRequests, BARE_PER_ROUND), 201, [bare.pid]));
      timed.submarine.push(await measured(job(ferry.apiUrl, submarines.rounds[round]), 201, server));
      timed.reverse.push(await measured(job(ferry.apiUrl, reverses.rounds[round]), 201, server));
    }
    const bareTotal = total(timed.bare);
    const submarineTotal = total(timed.submarine);
    const reverseTotal = total(timed.reverse);
    // The goals are CPU ratios: Ferry's CPU per creation against the bare server's per JSON POST.
    const ratio = (m: Measured, goal: number) =>
      `CPU ${(m.cpuPerRequest[0] / bareTotal.cpuPerRequest[0]).toFixed(0)}x the bare server's (goal <= ${goal}x), req/s ${(m.result.perSecond / bareTotal.result.perSecond).toFixed(3)}x bare`;
    const perCore = (m: Measured) => (1000 / m.cpuPerRequest[0]).toFixed(0);
    const lines = [
      `load: autocannon in a separate process, ${CONNECTIONS} keep-alive connections, one request in flight each; ${ROUNDS} rounds taking turns (bare, submarine, reverse)`,
      line('bare node:http JSON POST', bareTotal, ['server']),
      line('POST /v2/swap/submarine', submarineTotal, ['Ferry', 'devnet']) + `; ${ratio(submarineTotal, 15)}`,
      line('POST /v2/swap/reverse', reverseTotal, ['Ferry', 'devnet']) + `; ${ratio(reverseTotal, 20)}`,
      `  Ferry's CPU per request gives per core: submarine ${perCore(submarineTotal)}/s, reverse ${perCore(reverseTotal)}/s (goal 300/s); the bare server's: ${(1000 / bareTotal.cpuPerRequest[0]).toFixed(0)}/s`,
    ];
    if (PROFILE) {
      for (const [name, requests] of [['submarine', submarines.profiled], ['reverse', reverses.profiled]] as const) {
        const profile = await profileWhile(ferry.process, () => runLoad(job(ferry!.apiUrl, requests), 201));
        lines.push(`CPU profile of Ferry's process, ${requests.length} ${name} creations:`, ...summarise(profile).map((text) => '  ' + text));
      }
    }
    return lines;
  } finally {
    await bare.stop();
    if (ferry) await stop(ferry.process);
    await stop(devnet.process);
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  for (const text of await benchCreation()) console.log(text);
}
