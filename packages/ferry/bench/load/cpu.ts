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

/** Busy and total jiffies of the whole machine, all cores, from /proc/stat's first line. */
function machineJiffies(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  // idle and iowait are the 4th and 5th
  return { busy: total - fields[3] - (fields[4] ?? 0), total };
}

/** Starts watching the whole machine; the returned function gives the share of all cores busy since (0..1). */
export function machineMeter(): () => number {
  const start = machineJiffies();
  return () => {
    const now = machineJiffies();
    return (now.busy - start.busy) / Math.max(1, now.total - start.total);
  };
}

/** Starts counting the CPU of these processes; the returned function gives each one's milliseconds since. */
export function cpuMeter(pids: number[]): () => number[] {
  const start = pids.map((pid) => cpuIfAlive(pid) ?? 0);
  // A process that ended meanwhile (a database backend closing) adds nothing.
  return () => pids.map((pid, i) => (cpuIfAlive(pid) ?? start[i]) - start[i]);
}

function cpuIfAlive(pid: number): number | undefined {
  try {
    return cpuMs(pid);
  } catch {
    return undefined;
  }
}
