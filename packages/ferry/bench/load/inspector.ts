// A CPU profile of a running server process over one stretch of load only, through its inspector (started with
// `--inspect=127.0.0.1:0`): `--cpu-prof` would profile the whole life of the process, start-up and warm-up included.
import WebSocket from 'ws';
import type { FerryProcess } from '../../test/helpers/ferry-process.ts';
import type { CpuProfile } from './profile-summary.ts';

/** The node flag that opens the inspector on a free port (its URL is printed on stderr). */
export const inspectFlag = '--inspect=127.0.0.1:0';

function inspectorUrl(process: FerryProcess): string {
  const line = process.lines.find((text) => text.startsWith('Debugger listening on ws://'));
  if (line === undefined) throw new Error('the process has no inspector (start it with inspectFlag)');
  return line.slice('Debugger listening on '.length).trim();
}

/** Samples the process' CPU (every 250 µs) while `load` runs; returns the profile. */
export async function profileWhile(process: FerryProcess, load: () => Promise<unknown>): Promise<CpuProfile> {
  const ws = new WebSocket(inspectorUrl(process));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      pending.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await send('Profiler.enable');
    await send('Profiler.setSamplingInterval', { interval: 250 });
    await send('Profiler.start');
    await load();
    const { profile } = (await send('Profiler.stop')) as { profile: CpuProfile };
    return profile;
  } finally {
    ws.close();
  }
}
