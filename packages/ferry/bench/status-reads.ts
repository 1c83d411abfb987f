// Status reads, the service's capacity (wallets poll GET /v2/swap/{id} every few seconds per open swap): `ferry start`
// on SQLite and on PostgreSQL, each in its own process, next to a bare node:http server answering a fixed status body
// in a process of its own, all measured from a separate load process (autocannon, keep-alive connections), rounds
// taking turns so that the machine's other work weighs on all three alike. Each line gives req/s and the CPU
// milliseconds per read of the server process (and of the PostgreSQL backends serving it), read from /proc: on a
// shared machine the CPU per read is the steadier figure, and 1000 / it is the reads per second one core gives.
// With FERRY_BENCH_PROFILE=1 a last run against each instance is CPU-profiled and its top entries printed.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { cpuMeter, machineMeter } from './load/cpu.ts';
import { startBareServer, startDevnet, startInstance, stop, type BareServer, type FerryInstance } from './load/ferry.ts';
import { POSTGRES_URL, backendsOf, dropSchema } from './load/postgres.ts';
import { inspectFlag, profileWhile } from './load/inspector.ts';
import { runLoad, type LoadJob, type LoadResult } from './load/job.ts';
import { summarise } from './load/profile-summary.ts';

const SWAPS = Number(process.env.STATUS_SWAPS ?? 200);
const READS = Number(process.env.STATUS_READS ?? 20_000); // per round and target
const ROUNDS = Number(process.env.STATUS_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.STATUS_CONNECTIONS ?? 16);
const PROFILE = process.env.FERRY_BENCH_PROFILE === '1';

/** Creations that answered 500 during set-up and were asked again (printed: a connection reset by the devnet's node). */
let retried = 0;

/** Chain swaps BTC -> L-BTC through `apiUrl` (4 requests at a time; no Lightning call); their ids. */
export async function createSwaps(apiUrl: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  const worker = async () => {
    while (ids.length < n) {
      const key = Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)).toString('hex');
      const response = await fetch(`${apiUrl}/v2/swap/chain`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ from: 'BTC', to: 'L-BTC', userLockAmount: 100_000, preimageHash: randomBytes(32).toString('hex'), claimPublicKey: key, refundPublicKey: key }),
      }).catch((error: unknown) => {
        // A keep-alive connection the server closed just as it was reused: asked again on a new one.
        if (retried++ < 10) return undefined;
        throw error;
      });
      if (response === undefined) continue;
      if (response.status === 500 && retried < 10) {
        retried++;
        continue;
      }
      if (response.status !== 201) throw new Error(`swap creation answered ${response.status}: ${await response.text()}`);
      if (ids.length < n) ids.push(((await response.json()) as { id: string }).id);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return ids;
}

interface Run {
  result: LoadResult;
  machineBusy: number;
  serverCpuMs: number;
  postgresCpuMs: number;
}

interface Target {
  name: string;
  url: string;
  pid: number;
  requests: LoadJob['requests'];
  /** PostgreSQL application_name of its sessions, if any. */
  application?: string;
}

async function reads(target: Target): Promise<Run> {
  const postgres = cpuMeter(target.application ? await backendsOf(target.application) : []);
  const busy = machineMeter();
  const server = cpuMeter([target.pid]);
  const result = await runLoad({ targets: [target.url], method: 'GET', requests: target.requests, connections: CONNECTIONS, amount: READS }, 200);
  const sum = (ms: number[]) => ms.reduce((a, b) => a + b, 0);
  return { result, machineBusy: busy(), serverCpuMs: sum(server()), postgresCpuMs: sum(postgres()) };
}

interface Summary {
  perSecond: number;
  serverMs: number;
  line: string;
}

function summary(name: string, runs: Run[], bare?: Summary): Summary {
  const responses = runs.reduce((sum, r) => sum + r.result.responses, 0);
  const seconds = runs.reduce((sum, r) => sum + r.result.seconds, 0);
  const perSecond = responses / seconds;
  const p50 = runs.map((r) => r.result.p50Ms).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  const busy = runs.reduce((sum, r) => sum + r.machineBusy * r.result.seconds, 0) / seconds;
  const perRead = (ms: (r: Run) => number) => runs.reduce((sum, r) => sum + ms(r), 0) / responses;
  const serverMs = perRead((r) => r.serverCpuMs);
  const postgresMs = perRead((r) => r.postgresCpuMs);
  const rounds = runs.map((r) => r.result.perSecond.toFixed(0)).join('/');
  const versus = bare
    ? ` = ${(perSecond / bare.perSecond).toFixed(2)}x bare by req/s, ${(bare.serverMs / (serverMs + postgresMs)).toFixed(2)}x by CPU per read`
    : '';
  return {
    perSecond,
    serverMs,
    line:
      `${name.padEnd(30)} ${perSecond.toFixed(0).padStart(6)} req/s (rounds ${rounds}), p50 ${p50.toFixed(1)} ms; CPU ms per read: server ${serverMs.toFixed(4)}` +
      `${postgresMs > 0 ? `, PostgreSQL ${postgresMs.toFixed(4)}` : ''}, load process ${perRead((r) => r.result.generatorCpuMs).toFixed(4)}; machine ${(busy * 100).toFixed(0)}% busy${versus}`,
  };
}

export async function benchStatusReads(): Promise<string[]> {
  const root = await mkdtemp(join(tmpdir(), 'ferry-bench-status-'));
  const schema = `ferry_bench_${randomBytes(6).toString('hex')}`;
  const application = `ferry-bench-${schema}`;
  const devnet = await startDevnet(join(root, 'devnet'));
  const instances: FerryInstance[] = [];
  let bare: BareServer | undefined;
  try {
    const nodeArgs = PROFILE ? { nodeArgs: [inspectFlag] } : {};
    const sqlite = await startInstance(devnet.info, { dataDir: join(root, 'sqlite'), mnemonicPath: join(root, 'mnemonic'), ...nodeArgs });
    instances.push(sqlite);
    const postgres = await startInstance(devnet.info, {
      dataDir: join(root, 'postgres'),
      mnemonicPath: join(root, 'mnemonic-pg'),
      databaseUrl: `${POSTGRES_URL}?schema=${schema}`,
      postgresApplication: application,
      ...nodeArgs,
    });
    instances.push(postgres);
    bare = await startBareServer();
    const paths = (ids: string[]) => ids.map((id) => ({ path: `/v2/swap/${id}` }));
    const targets: Target[] = [
      { name: 'bare node:http GET', url: bare.url, pid: bare.pid, requests: [{ path: '/' }] },
      { name: 'GET /v2/swap/{id} SQLite', url: sqlite.apiUrl, pid: sqlite.pid, requests: paths(await createSwaps(sqlite.apiUrl, SWAPS)) },
      { name: 'GET /v2/swap/{id} PostgreSQL', url: postgres.apiUrl, pid: postgres.pid, requests: paths(await createSwaps(postgres.apiUrl, SWAPS)), application },
    ];
    // warm-up: JIT, connection pools, prepared statements
    for (const target of targets) await runLoad({ targets: [target.url], method: 'GET', requests: target.requests, connections: CONNECTIONS, amount: 4_000 }, 200);
    const runs = targets.map(() => [] as Run[]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, target] of targets.entries()) runs[i].push(await reads(target));
    }
    const bareSummary = summary(targets[0].name, runs[0]);
    const lines = [
      ...(retried > 0 ? [`(${retried} set-up creations failed (500 or a connection reset) and were asked again)`] : []),
      `${SWAPS} chain swaps per store; load: autocannon in a separate process, ${CONNECTIONS} keep-alive connections, ${READS} reads per run, ${ROUNDS} rounds taking turns (bare, SQLite, PostgreSQL)`,
      bareSummary.line,
      ...targets.slice(1).map((target, i) => summary(target.name, runs[i + 1], bareSummary).line),
      `  per core (1000 / server CPU ms per read): bare ${(1 / bareSummary.serverMs).toFixed(0)}k/s, ` +
        targets
          .slice(1)
          .map((target, i) => `${target.name.split(' ').pop()} ${(1 / summary(target.name, runs[i + 1]).serverMs).toFixed(0)}k/s`)
          .join(', '),
    ];
    if (PROFILE) {
      for (const [i, instance] of instances.entries()) {
        const target = targets[i + 1];
        const profile = await profileWhile(instance.process, () => reads(target));
        lines.push(`CPU profile of ${target.name}, ${READS} reads:`, ...summarise(profile).map((text) => '  ' + text));
      }
    }
    return lines;
  } catch (error) {
    for (const instance of instances) for (const text of instance.process.lines.filter((l) => l.includes('"error"')).slice(-5)) console.error(text);
    throw error;
  } finally {
    await bare?.stop();
    for (const instance of instances.reverse()) await stop(instance.process);
    await stop(devnet.process);
    await dropSchema(schema);
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  for (const text of await benchStatusReads()) console.log(text);
}
