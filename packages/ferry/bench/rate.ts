// The verification benchmarks' clock and line format, shared by the Bitcoin and Liquid sides.

export interface Rate {
  perSecond: number; // wall clock
  cpuMs: number; // this process's CPU time per operation: steadier on a shared machine
  n: number; // operations timed
}

/** Starts the wall and CPU clocks; the returned function stops them and gives the rate over n operations. */
export function startClock(n: number): () => Rate {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  return () => {
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const used = process.cpuUsage(cpu);
    return { perSecond: n / seconds, cpuMs: (used.user + used.system) / 1000 / n, n };
  };
}

export function rateLine(name: string, rate: Rate): string {
  return (
    `${name}: ${rate.perSecond.toFixed(0)} spends/s, ` +
    `${(1000 / rate.perSecond).toFixed(2)} ms wall / ${rate.cpuMs.toFixed(2)} ms CPU each (N=${rate.n})`
  );
}

/**
 * a's throughput over b's, by wall clock and by CPU time per operation: the two are timed one after the
 * other, and load from other processes, which can differ between them, disturbs CPU time less.
 */
export function ratio(a: Rate, b: Rate): string {
  return `${(a.perSecond / b.perSecond).toFixed(2)}x (by CPU time ${(b.cpuMs / a.cpuMs).toFixed(2)}x)`;
}
