// Runs the real `ferry` command as a child process and reads its JSON log lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ferryBin = fileURLToPath(new URL('../../bin/ferry.mjs', import.meta.url));

export interface FerryProcess {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first parsed JSON log line that matches. */
  waitFor(match: (entry: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

export function runFerry(args: string[], env: Record<string, string>): FerryProcess {
  const child = spawn(process.execPath, [ferryBin, ...args], {
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
        exited.then((code) => reject(new Error(`ferry exited with ${code}; output:\n${lines.join('\n')}`)));
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
