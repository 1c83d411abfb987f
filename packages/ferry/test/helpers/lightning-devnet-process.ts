// Starts lightning-devnet-child.ts and waits for its nodes: the devnet's Lightning network in a process of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LightningNodeInfo } from '@ferry/devnet/lightning/index.js';

const childScript = fileURLToPath(new URL('./lightning-devnet-child.ts', import.meta.url));

export interface LightningProcess {
  child: ChildProcess;
  pid: number;
  nodes: Record<string, LightningNodeInfo>;
  exited: Promise<void>;
  /** Ends stdin: the child closes its network (a last compaction of its state) and exits. */
  stop(): Promise<void>;
  /** SIGKILL: nothing closed, nothing flushed beyond what each change wrote. */
  kill(): Promise<void>;
}

/** `nodeArgs` go to node before the script (a bench's `--cpu-prof`). */
export async function startLightningProcess(dataDir: string, lightningModule?: string, nodeArgs: string[] = []): Promise<LightningProcess> {
  const args = [...nodeArgs, '--import', 'tsx', childScript, dataDir, ...(lightningModule === undefined ? [] : [lightningModule])];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const first = await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
  if (first.done === true) throw new Error('the Lightning devnet process exited before its nodes listened');
  return {
    child,
    pid: child.pid!,
    nodes: JSON.parse(first.value as string) as Record<string, LightningNodeInfo>,
    exited,
    stop: async () => {
      child.stdin!.end();
      await exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
