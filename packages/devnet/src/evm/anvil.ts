// The anvil process behind the devnet's EVM chain: the binary the @foundry-rs/anvil npm package installs for this
// platform, run with anvil's defaults (test mnemonic, chain id 31337, automine) plus its state file, and tied to our
// process so it never outlives it: on Linux `setpriv --pdeathsig` has the kernel send it SIGTERM (anvil then dumps
// its state and exits) when the devnet's process dies, even by SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface AnvilOptions {
  dir: string; // state.json, anvil.log and anvil.pid live here
  host: string;
  port: number; // 0 = ephemeral: anvil binds a free port and prints it
}

export interface Anvil {
  rpcUrl: string;
  pid: number;
  stop(): Promise<void>;
}

const platformPackages: Record<string, string> = {
  'linux-x64': 'linux-amd64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-amd64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-amd64',
};

/** The binary inside @foundry-rs/anvil's platform package (its bin.mjs wrapper would add a node process between). */
export function anvilBinary(): string {
  const suffix = platformPackages[`${process.platform}-${process.arch}`];
  if (!suffix) throw new Error(`anvil is not packaged for ${process.platform}-${process.arch}`);
  const name = `@foundry-rs/anvil-${suffix}/bin/anvil${process.platform === 'win32' ? '.exe' : ''}`;
  try {
    return createRequire(import.meta.url).resolve(name);
  } catch {
    throw new Error(`${name} is not installed (an optional dependency of @foundry-rs/anvil): run npm ci`);
  }
}

const SETPRIV = '/usr/bin/setpriv';
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * An anvil left from an earlier run on this directory: one whose devnet died is exiting (pdeathsig) and may still be
 * writing state.json, so end it and wait (10 s, then SIGKILL); one whose devnet still runs (this process included)
 * means the directory is in use.
 */
async function reapPrevious(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const { pid, parent } = JSON.parse(readFileSync(pidFile, 'utf8')) as { pid: number; parent: number };
  const isAnvil = (): boolean => {
    try {
      return alive(pid) && (process.platform !== 'linux' || readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('anvil'));
    } catch {
      return false; // it exited between the two looks
    }
  };
  if (isAnvil() && alive(parent)) {
    throw new Error(`${dirname(pidFile)} is in use by anvil ${pid} of the devnet in process ${parent}`);
  }
  if (isAnvil()) process.kill(pid, 'SIGTERM'); // one more changes nothing for an anvil already exiting
  for (let i = 0; i < 200 && isAnvil(); i++) await sleep(50);
  if (isAnvil()) process.kill(pid, 'SIGKILL');
  rmSync(pidFile, { force: true });
}

/** anvil writes state.json in place: a dump cut short by SIGKILL is set aside so the chain starts anew. */
function setAsideUnreadableState(path: string): void {
  if (!existsSync(path)) return;
  try {
    JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    renameSync(path, `${path}.unreadable-${Date.now()}`);
  }
}

/** The RPC address anvil prints once it listens ("Listening on 127.0.0.1:PORT"), or why it exited before. */
async function listeningAddress(child: ChildProcess, logPath: string): Promise<string> {
  let exit: string | undefined;
  child.once('exit', (code, signal) => (exit ??= `anvil exited (${signal ?? code}) before listening`));
  child.once('error', (error) => (exit ??= `anvil did not run: ${error.message}`));
  for (const started = Date.now(); Date.now() - started < 30_000; ) {
    const log = readFileSync(logPath, 'utf8');
    const match = /Listening on (\S+)/.exec(log);
    if (match) return match[1]!;
    if (exit) throw new Error(`${exit}:\n${log.split('\n').slice(-10).join('\n')}`);
    await sleep(10);
  }
  child.kill('SIGKILL');
  throw new Error('anvil did not listen within 30 s');
}

export async function startAnvil(options: AnvilOptions): Promise<Anvil> {
  const pidFile = join(options.dir, 'anvil.pid');
  const logPath = join(options.dir, 'anvil.log');
  const statePath = join(options.dir, 'state.json');
  await reapPrevious(pidFile);
  setAsideUnreadableState(statePath);
  // Past block states anvil moves out of memory go to its --cache-path, by default ~/.foundry/anvil/tmp, where a
  // killed anvil leaves them (0.7–2.3 GB for a test that mines thousands of blocks; a test run once filled the disk).
  // Kept in the devnet's own directory instead, and cleared at each start: --state holds what a restart needs.
  const statesPath = join(options.dir, 'anvil-states');
  rmSync(statesPath, { recursive: true, force: true });
  const args = ['--host', options.host, '--port', String(options.port), '--state', statePath, '--cache-path', statesPath];
  const binary = anvilBinary();
  const tied = process.platform === 'linux' && existsSync(SETPRIV);
  // Output goes to a file, not a pipe: a pipe would break when we die, and anvil must still dump its state then.
  const log = openSync(logPath, 'w');
  const child = tied
    ? spawn(SETPRIV, ['--pdeathsig', 'TERM', '--', binary, ...args], { stdio: ['ignore', log, log] })
    : spawn(binary, args, { stdio: ['ignore', log, log] });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()).once('error', () => resolve()));
  // Without setpriv (macOS), at least a normal exit of ours takes anvil along.
  const killOnExit = () => child.kill('SIGTERM');
  if (!tied) process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM'); // anvil writes state.json, then exits
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(pidFile, { force: true });
  };
  try {
    if (child.pid === undefined) await listeningAddress(child, logPath); // spawn failed: throws its reason
    const pid = child.pid!;
    writeFileSync(pidFile, JSON.stringify({ pid, parent: process.pid }) + '\n');
    const address = await listeningAddress(child, logPath);
    return { rpcUrl: `http://${address}`, pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
