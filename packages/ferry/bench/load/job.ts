// What the HTTP benches ask of the load process (generator.ts) and what it answers, and runLoad, which starts that
// process for one job and waits for its answer: every timed request comes from outside the servers' processes.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LoadJob {
  /** Base URLs; several split the connections and the requests evenly. */
  targets: string[];
  method: 'GET' | 'POST';
  /** Taken in order across all connections, one each; a list shorter than `amount` starts over. */
  requests: { path: string; body?: string }[];
  connections: number;
  amount: number;
}

export interface LoadResult {
  responses: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses by HTTP status. */
  statuses: Record<string, number>;
  /** CPU milliseconds the load process itself spent driving the load (it shares the machine with the servers). */
  generatorCpuMs: number;
}

const generator = fileURLToPath(new URL('./generator.ts', import.meta.url));

/** Runs one job in a new load process; rejects when the process fails or any answer is not `expectStatus`. */
export async function runLoad(job: LoadJob, expectStatus: number): Promise<LoadResult> {
  const dir = await mkdtemp(join(tmpdir(), 'ferry-bench-load-'));
  try {
    const file = join(dir, 'job.json');
    await writeFile(file, JSON.stringify(job));
    const child = spawn(process.execPath, ['--import', 'tsx', generator, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`the load process exited with ${code}`);
    const result = JSON.parse(output) as LoadResult;
    const wrong = Object.entries(result.statuses).filter(([status]) => Number(status) !== expectStatus);
    if (wrong.length > 0) throw new Error(`expected only ${expectStatus}, got ${JSON.stringify(result.statuses)}`);
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
