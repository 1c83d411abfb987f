// The load generator of the HTTP benches, in a process of its own: a fetch loop in the bench's process tops out
// near 2,500 req/s and shares its thread with what it measures. Reads a LoadJob (JSON file named by argv[2]),
// drives it with autocannon (keep-alive connections, one request in flight each) and prints a LoadResult as one
// JSON line. Several targets split the connections evenly between them; the figures are over all of them.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { LoadJob, LoadResult } from './job.ts';

const job = JSON.parse(readFileSync(process.argv[2], 'utf8')) as LoadJob;
const latencies: number[] = [];
const statuses: Record<string, number> = {};
let next = 0;
let lastResponse = 0;

/** The next request of the job's list, whichever connection asks: each body (invoice, preimage hash) is used once. */
function setupRequest(request: autocannon.Request): autocannon.Request {
  const item = job.requests[next++ % job.requests.length];
  return { ...request, method: job.method, path: item.path, ...(item.body !== undefined && { body: item.body }) };
}

function drive(url: string, connections: number, amount: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        amount,
        timeout: 30,
        // autocannon notices that `amount` is reached only at its next sample: 1 s by default, which the run would
        // otherwise count as its own time; the clock below stops at the last response anyway.
        sampleInt: 50,
        headers: { 'content-type': 'application/json' },
        requests: [{ setupRequest }],
      },
      (error) => (error ? reject(error) : resolve()),
    );
    // Not in the type definitions: the instance re-emits each client's response with its latency in ms.
    (instance as unknown as NodeJS.EventEmitter).on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      latencies.push(ms);
      lastResponse = performance.now();
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
  });
}

const share = (total: number, i: number) => Math.floor(total / job.targets.length) + (i < total % job.targets.length ? 1 : 0);
const started = performance.now();
const cpu = process.cpuUsage();
await Promise.all(job.targets.map((url, i) => drive(url, share(job.connections, i), share(job.amount, i))));
const seconds = (lastResponse - started) / 1000;
const used = process.cpuUsage(cpu);

latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
const result: LoadResult = { responses: latencies.length, seconds, perSecond: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99), statuses, generatorCpuMs: (used.user + used.system) / 1000 };
process.stdout.write(JSON.stringify(result) + '\n');
