// Runs the real `ferry` command as a child process: to completion with its exit code and output, or left running
// while its JSON lines are read.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { ferryLightningEnv } from './test-lightning.ts';

/**
 * The `ferry` command: in a test run the JavaScript bundle scripts/test.mjs built from the sources (FERRY_TEST_BUNDLES,
 * scripts/test-bundles.mjs: half the CPU of a start through tsx), else bin/ferry.mjs.
 */
const bundles = process.env.FERRY_TEST_BUNDLES ?? '';
export const ferryBin = isAbsolute(bundles)
  ? join(bundles, 'ferry.mjs')
  : fileURLToPath(new URL('../../bin/ferry.mjs', import.meta.url));

/** `ferry start`'s environment for a devnet run as its own process: its nodes as an operator's external ones. */
export function devnetNodesEnv(info: DevnetInfo): Record<string, string> {
  return {
    FERRY_DEVNET_ENABLED: 'false',
    FERRY_BITCOIN_RPC_URL: info.bitcoin.rpcUrl,
    FERRY_BITCOIN_RPC_USER: info.bitcoin.rpcUser,
    FERRY_BITCOIN_RPC_PASSWORD: info.bitcoin.rpcPassword,
    FERRY_BITCOIN_WALLET: info.bitcoin.wallets.operator,
    FERRY_LIQUID_RPC_URL: info.elements.rpcUrl,
    FERRY_LIQUID_RPC_USER: info.elements.rpcUser,
    FERRY_LIQUID_RPC_PASSWORD: info.elements.rpcPassword,
    FERRY_LIQUID_WALLET: info.elements.wallets.operator,
    // Ferry's node: LND's REST, or the devnet's CLN node when the tests run on CLN (FERRY_TEST_LIGHTNING).
    ...ferryLightningEnv(info),
  };
}

const exec = promisify(execFile);

/** `ferry ARGS` to completion: its exit code, stdout and stderr. */
export function ferryCommand(env: Record<string, string | undefined>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return releaseCommand(ferryBin, env, ...args);
}

/** `ferry ARGS` of the release whose script is `bin`, to completion. */
export async function releaseCommand(bin: string, env: Record<string, string | undefined>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [bin, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The JSON objects of a `--json` output, one per line. */
export const jsonLines = (text: string): Record<string, unknown>[] =>
  text.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

export interface FerryProcess {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first parsed JSON log line that matches. */
  waitFor(match: (entry: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/**
 * `ferry ARGS` left running; `nodeArgs` go to node before the script (the benches' `--cpu-prof`); `bin`: another
 * release's script (the upgrade tests').
 */
export function runFerry(args: string[], env: Record<string, string | undefined>, nodeArgs: string[] = [], bin = ferryBin): FerryProcess {
  const child = spawn(process.execPath, [...nodeArgs, bin, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { match: (e: Record<string, unknown>) => boolean; resolve: (e: Record<string, unknown>) => void }[] = [];
  let buffer = '';
  const onLine = (line: string) => {
    lines.push(line);
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line);
    } catch {
      return;
    }
    for (const waiter of [...waiters]) {
      if (waiter.match(entry)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(entry);
      }
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      onLine(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    waitFor: (match, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for a log line; output:\n${lines.join('\n')}`)),
          timeoutMs,
        );
        // the hang guard goes with the process: a timer left armed kept the test process alive for its full length
        exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`ferry exited with ${code}; output:\n${lines.join('\n')}`));
        });
        waiters.push({
          match,
          resolve: (entry) => {
            clearTimeout(timer);
            resolve(entry);
          },
        });
      }),
  };
}
