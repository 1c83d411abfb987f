// Status reads on two instances against one (issue 13: ≥ 1.8×): `ferry start` twice on one PostgreSQL schema (a
// leader and a standby, each its own process), a few hundred swaps created through the leader, then GET
// /v2/swap/{id} from a separate load process (autocannon) against one instance, and against both with the
// connections split evenly. Beside them, the same with one and two bare node:http servers answering a fixed
// status body: how far two server processes can scale at all on this machine with the load process on it. Rounds
// take turns; each line also gives the machine's CPU in use and the load process' own CPU per request. With
// FERRY_BENCH_PROFILE=1 a last run against the first instance is CPU-profiled and its top entries printed.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { benchPreparedReads } from './prepared.ts';
import { cpuMeter, machineMeter } from './load/cpu.ts';
import { startBareServer, startDevnet, startInstance, stop, type BareServer, type FerryInstance } from './load/ferry.ts';
import { POSTGRES_URL, backendsOf, dropSchema } from './load/postgres.ts';
import { inspectFlag, profileWhile } from './load/inspector.ts';
import { runLoad, type LoadJob, type LoadResult } from './load/job.ts';
import { summarise } from './load/profile-summary.ts';

const SWAPS = Number(process.env.INSTANCES_SWAPS ?? 300);
const READS = Number(process.env.INSTANCES_READS ?? 15_000); // per round and target
const ROUNDS = Number(process.env.INSTANCES_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.INSTANCES_CONNECTIONS ?? 32);
const PROFILE = process.env.FERRY_BENCH_PROFILE === '1';

/** Reverse swaps through `apiUrl` (8 requests at a time); their ids. */
async function createSwaps(apiUrl: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  const worker = async () => {
    while (ids.length < n) {
      const claimPublicKey = Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)).toString('hex');
      const response = await fetch(`${apiUrl}/v2/swap/reverse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ from: 'BTC', to: 'BTC', invoiceAmount: 50_000, preimageHash: randomBytes(32).toString('hex'), claimPublicKey }),
      });
      if (response.status !== 201) throw new Error(`swap creation answered ${response.status}: ${await response.text()}`);
      ids.push(((await response.json()) as { id: string }).id);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}

interface Run {
  result: LoadResult;
  machineBusy: number;
  /** CPU ms of the servers (Ferry's instances or the bare processes, summed) and of their PostgreSQL backends. */
  serverCpuMs: number;
  postgresCpuMs: number;
}

async function reads(targets: string[], requests: LoadJob['requests'], serverPids: number[], application: string): Promise<Run> {
  const postgres = cpuMeter(await backendsOf(application));
  const busy = machineMeter();
  const servers = cpuMeter(serverPids);
  const result = await runLoad({ targets, method: 'GET', requests, connections: CONNECTIONS, amount: READS }, 200);
  const sum = (ms: number[]) => ms.reduce((a, b) => a + b, 0);
  return { result, machineBusy: busy(), serverCpuMs: sum(servers()), postgresCpuMs: sum(postgres()) };
}

function summary(name: string, runs: Run[]): { text: string; perSecond: number } {
  const responses = runs.reduce((sum, r) => sum + r.result.responses, 0);
  const seconds = runs.reduce((sum, r) => sum + r.result.seconds, 0);
  const perSecond = responses / seconds;
  const p50 = runs.map((r) => r.result.p50Ms).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  const p99 = Math.max(...runs.map((r) => r.result.p99Ms));
  const busy = runs.reduce((sum, r) => sum + r.machineBusy * r.result.seconds, 0) / seconds;
  const ours = runs.reduce((sum, r) => sum + r.serverCpuMs + r.postgresCpuMs + r.result.generatorCpuMs, 0) / (seconds * 1000 * availableParallelism());
  const perRead = (ms: (r: Run) => number) => (runs.reduce((sum, r) => sum + ms(r), 0) / responses).toFixed(3);
  const rounds = runs.map((r) => r.result.perSecond.toFixed(0)).join('/');
  return {
    perSecond,
    text: `${name.padEnd(30)} ${perSecond.toFixed(0).padStart(6)} req/s (rounds ${rounds}), p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; machine ${(busy * 100).toFixed(0)}% busy (this bench's processes ${(ours * 100).toFixed(0)}%); CPU ms per read: servers ${perRead((r) => r.serverCpuMs)}, PostgreSQL ${perRead((r) => r.postgresCpuMs)}, load process ${perRead((r) => r.result.generatorCpuMs)}`,
  };
}

export async function benchInstances(): Promise<string[]> {
  const root = await mkdtemp(join(tmpdir(), 'ferry-bench-instances-'));
  const schema = `ferry_bench_${randomBytes(6).toString('hex')}`;
  const databaseUrl = `${POSTGRES_URL}?schema=${schema}`;
  const devnet = await startDevnet(join(root, 'devnet'));
  const instances: FerryInstance[] = [];
  const bares: BareServer[] = [];
  try {
    const application = `ferry-bench-${schema}`;
    const options = (name: string) => ({ dataDir: join(root, name), mnemonicPath: join(root, 'mnemonic'), databaseUrl, postgresApplication: application });
    // One after the other: the first takes the leader lock.
    instances.push(await startInstance(devnet.info, { ...options('a'), ...(PROFILE && { nodeArgs: [inspectFlag] }) }));
    instances.push(await startInstance(devnet.info, options('b')));
    bares.push(await startBareServer(), await startBareServer());
    const ids = await createSwaps(instances[0].apiUrl, SWAPS);
    const requests = ids.map((id) => ({ path: `/v2/swap/${id}` }));
    const [a, b] = instances.map((instance) => instance.apiUrl);
    const [bareA, bareB] = bares.map((bare) => bare.url);

    // warm-up: JIT, connection pools, prepared statements on both instances
    await runLoad({ targets: [a, b, bareA, bareB], method: 'GET', requests, connections: 8, amount: 4_000 }, 200);
    const runs = { one: [] as Run[], two: [] as Run[], bareOne: [] as Run[], bareTwo: [] as Run[] };
    for (let round = 0; round < ROUNDS; round++) {
      runs.one.push(await reads([a], requests, [instances[0].pid], application));
      runs.two.push(await reads([a, b], requests, instances.map((instance) => instance.pid), application));
      runs.bareOne.push(await reads([bareA], requests, [bares[0].pid], application));
      runs.bareTwo.push(await reads([bareA, bareB], requests, bares.map((bare) => bare.pid), application));
    }
    const one = summary('GET /v2/swap/{id}, 1 instance', runs.one);
    const two = summary('GET /v2/swap/{id}, 2 instances', runs.two);
    const bareOne = summary('bare node:http GET, 1 process', runs.bareOne);
    const bareTwo = summary('bare node:http GET, 2 processes', runs.bareTwo);
    const lines = [
      `${SWAPS} swaps on PostgreSQL (one schema, leader + standby); load: autocannon in a separate process, ${CONNECTIONS} keep-alive connections (split evenly over 2 targets), ${READS} reads per run, ${ROUNDS} rounds taking turns`,
      one.text,
      two.text,
      bareOne.text,
      bareTwo.text,
      `  2 instances / 1: ${(two.perSecond / one.perSecond).toFixed(2)}x (goal 1.8x); 2 bare processes / 1: ${(bareTwo.perSecond / bareOne.perSecond).toFixed(2)}x on the same machine`,
      ...(await benchPreparedReads(POSTGRES_URL, schema, ids)),
    ];
    if (PROFILE) {
      const profile = await profileWhile(instances[0].process, () => reads([a], requests, [instances[0].pid], application));
      lines.push(`CPU profile of the first instance, ${READS} reads:`, ...summarise(profile).map((text) => '  ' + text));
    }
    return lines;
  } finally {
    for (const bare of bares) await bare.stop();
    for (const instance of instances.reverse()) await stop(instance.process);
    await stop(devnet.process);
    await dropSchema(schema);
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  for (const text of await benchInstances()) console.log(text);
}
