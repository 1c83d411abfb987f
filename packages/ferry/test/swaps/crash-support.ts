// The set-up the crash files share (crash.test.ts: swaps through Ferry's Lightning node, on both nodes;
// crash-chain.test.ts: chain swaps, which never reach it, on one): `ferry devnet` as its own process, Ferry's configs
// (a quick watcher; the v1 prepay; a claim one second after the preimage), `ferry start` processes that SIGKILL
// themselves at a named point (FERRY_CRASH_AT), and the waits on a crash and on a swap's status.
import { before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { useDevnetProcess, type RunningFerry } from '../helpers/devnet-process.ts';
import { DevnetChain } from './scenarios/support/chain.ts';
import { LiquidChain } from './scenarios/support/liquid-chain.ts';
import { LightningNodes } from './scenarios/support/lightning.ts';

export interface CrashWorld {
  /** Resolves once the devnet runs and the fields below are set. */
  readonly ready: Promise<void>;
  ferryDir: string;
  /** A quick watcher; everything else is Ferry's defaults. */
  configFile: string;
  /** Ferry's config for the chain swap claim tests: its claim follows one second after it learns the preimage. */
  quickClaimConfigFile: string;
  /** Ferry's config with the v1 miner fee prepay. */
  prepayConfigFile: string;
  info: DevnetInfo;
  chain: DevnetChain;
  liquid: LiquidChain;
  lightning: LightningNodes;
  /** `ferry start` against the devnet process, as an operator with external nodes runs it. */
  startFerryProcess(crashAt?: string, config?: string): Promise<RunningFerry>;
}

/** Registers the file's hooks (the devnet process's, and one writing the configs). */
export function useCrashWorld(prefix: string): CrashWorld {
  const devnet = useDevnetProcess(prefix);
  let markReady!: () => void;
  let markFailed!: (error: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    markFailed = reject;
  });
  ready.catch(() => {}); // reported by the hook that failed
  const world = {
    ready,
    startFerryProcess: (crashAt?: string, config = world.configFile): Promise<RunningFerry> =>
      devnet.startFerry({ FERRY_CONFIG: config, FERRY_DATA_DIR: world.ferryDir, FERRY_CRASH_AT: crashAt ?? '' }),
  } as CrashWorld;

  before(async () => {
    try {
      await devnet.ready;
      world.ferryDir = join(devnet.root, 'ferry');
      mkdirSync(world.ferryDir);
      world.configFile = join(world.ferryDir, 'ferry.toml');
      writeFileSync(world.configFile, '[bitcoin]\npollIntervalMs = 150\n[liquid]\npollIntervalMs = 150\n');
      world.prepayConfigFile = join(world.ferryDir, 'ferry-prepay.toml');
      writeFileSync(world.prepayConfigFile, '[bitcoin]\npollIntervalMs = 150\n[liquid]\npollIntervalMs = 150\n[swap]\nprepayMinerFee = true\n');
      world.quickClaimConfigFile = join(world.ferryDir, 'ferry-quick-claim.toml');
      writeFileSync(world.quickClaimConfigFile, '[bitcoin]\npollIntervalMs = 150\n[liquid]\npollIntervalMs = 150\n[swap]\nclaimDelayMs = 1000\n');
      world.info = devnet.info;
      world.chain = new DevnetChain(world.info);
      world.liquid = new LiquidChain(world.info);
      world.lightning = new LightningNodes(world.info);
      markReady();
    } catch (error) {
      markFailed(error);
      throw error;
    }
  });
  return world;
}

export async function stopFerry(ferry: RunningFerry): Promise<void> {
  ferry.process.child.kill('SIGTERM');
  assert.equal(await ferry.process.exited, 0, ferry.process.lines.join('\n'));
}

/** Waits for Ferry to kill itself at `point`; fails if it never gets there. */
export async function untilCrash(ferry: RunningFerry, point: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Ferry never reached crash point ${point}; output:\n${ferry.process.lines.slice(-30).join('\n')}`)),
      15_000,
    );
  });
  try {
    await Promise.race([ferry.process.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
  assert.equal(ferry.process.child.signalCode, 'SIGKILL');
  assert.ok(ferry.process.lines.some((line) => line.includes(`FERRY_CRASH_AT=${point}`)), 'killed at the named point');
}

/** A swap's status as Ferry's API gives it, once it is `wanted`. */
export async function untilStatusOf(apiUrl: string, id: string, wanted: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  let status = '';
  while (status !== wanted) {
    status = ((await (await fetch(`${apiUrl}/v2/swap/${id}`)).json()) as { status: string }).status;
    if (Date.now() > deadline) throw new Error(`swap ${id} is ${status}, not ${wanted}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The txid of Ferry's lockup of a chain swap, once it is sent. */
export async function untilServerLockup(apiUrl: string, id: string): Promise<string> {
  await untilStatusOf(apiUrl, id, 'transaction.server.mempool');
  const transactions = (await (await fetch(`${apiUrl}/v2/swap/chain/${id}/transactions`)).json()) as { serverLock: { transaction: { id: string } } };
  return transactions.serverLock.transaction.id;
}
