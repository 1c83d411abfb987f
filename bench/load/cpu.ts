// CPU time a server process spent, read from Linux's /proc: on a 2-core machine shared with other work, the wall
// clock says little about a server, its CPU milliseconds per request say more (and 1000 / that is its rate per core).
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds of process `pid` so far (10 ms resolution). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at its closing parenthesis; utime and stime are
  // fields 14 and 15, so the 12th and 13th after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** Starts counting the CPU of these processes; the returned function gives each one's milliseconds since. */
export function cpuMeter(pids: number[]): () => number[] {
  const start = pids.map(cpuMs);
  return () => pids.map((pid, i) => cpuMs(pid) - start[i]);
}
