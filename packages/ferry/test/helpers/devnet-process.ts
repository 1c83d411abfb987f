// The set-up of the tests that run Ferry as real processes against a devnet run as its own process (crash, fee bump
// crash, EVM crash and several-instance tests): a temporary folder, `ferry devnet` in it until the file ends, and
// `ferry start` processes pointed at its nodes, every one a test left running killed before the next test starts.
// Registers the file's before/afterEach/after hooks. Node runs a file's top-level `before` hooks without waiting for
// one another, so a file's own set-up starts with `await devnet.ready`.
import { after, afterEach, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDevnetInfo, type DevnetInfo } from '@ferry/devnet/index.js';
import { devnetNodesEnv, runFerry, type FerryProcess } from './ferry-process.ts';
import { ephemeralPorts } from './ports.ts';
import { devnetLightningEnv } from './test-lightning.ts';

export interface RunningFerry {
  process: FerryProcess;
  apiUrl: string;
}

export interface DevnetProcess {
  /** Resolves once the devnet runs and `root` and `info` are set. */
  readonly ready: Promise<void>;
  /** The temporary folder: the devnet's data in `devnet/`, the rest is the file's. */
  readonly root: string;
  readonly info: DevnetInfo;
  /**
   * `ferry start` against the devnet's nodes with `env` on top (FERRY_CONFIG, FERRY_DATA_DIR, FERRY_CRASH_AT…);
   * `bin`: another release's script (helpers/next-release.ts).
   */
  startFerry(env: Record<string, string>, bin?: string): Promise<RunningFerry>;
}

export function useDevnetProcess(prefix: string, devnetEnv: Record<string, string> = {}): DevnetProcess {
  let root = '';
  let devnet: FerryProcess | undefined;
  let info: DevnetInfo | undefined;
  const started = new Set<FerryProcess>();
  let markReady!: () => void;
  let markFailed!: (error: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    markFailed = reject;
  });
  ready.catch(() => {}); // reported by the hook that failed

  before(async () => {
    try {
      root = mkdtempSync(join(tmpdir(), prefix));
      devnet = runFerry(['devnet'], { FERRY_DATA_DIR: join(root, 'devnet'), ...ephemeralPorts, ...devnetLightningEnv(), ...devnetEnv });
      // A hang guard, not a timing: at load ~30 on 2 cores `ferry devnet` printed nothing for over 60 s (the helper's
      // default) while loading.
      await devnet.waitFor((entry) => entry.message === 'devnet running', 300_000);
      info = readDevnetInfo(join(root, 'devnet'));
      markReady();
    } catch (error) {
      markFailed(error);
      throw error;
    }
  });

  afterEach(async () => {
    for (const process of started) {
      if (process.child.exitCode === null && process.child.signalCode === null) {
        process.child.kill('SIGKILL');
        await process.exited;
      }
    }
    started.clear();
  });

  after(async () => {
    devnet?.child.kill('SIGTERM');
    await devnet?.exited;
    if (root) rmSync(root, { recursive: true, force: true });
  });

  return {
    ready,
    get root() {
      return root;
    },
    get info() {
      if (info === undefined) throw new Error('the devnet process is not running yet');
      return info;
    },
    async startFerry(env, bin) {
      const process = runFerry(['start'], { ...ephemeralPorts, FERRY_API_PORT: '0', ...devnetNodesEnv(info!), ...env }, [], bin);
      started.add(process);
      // A hang guard: at load ~25 a `ferry start` had not reached 'API listening' 30 s after its nodes answered.
      const listening = await process.waitFor((entry) => entry.message === 'API listening', 180_000);
      return { process, apiUrl: listening.url as string };
    },
  };
}
