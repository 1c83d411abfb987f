// Load generator of the WebSocket fan-out and idle-memory benches, in its own process: opens N clients to URL
// (50 at a time); with a swap ID, subscribes each to it and waits for the acknowledgements; prints "ready". With a
// STATUS, only updates to it count (a real swap's subscription first brings its current status).
// A line "T0 <epoch ms>" on stdin says when the server published: once every client got its update, prints
// the p50/p99/max latency from T0 to receipt as JSON. Holds the connections until stdin ends.
import { createInterface } from 'node:readline';
import WebSocket from 'ws';

const [url, countArg, id, status] = process.argv.slice(2);
const count = Number(countArg);
const now = () => performance.timeOrigin + performance.now();
const received: number[] = [];
let t0: number | undefined;

function report(): void {
  if (t0 === undefined || received.length < count) return;
  const sorted = received.map((t) => t - t0!).sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  process.stdout.write(JSON.stringify({ p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] }) + '\n');
}

async function open(): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const acked = new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.event === 'error') reject(new Error(message.error));
      else if (message.event === 'subscribe') resolve();
      else if (message.event === 'update' && (status === undefined || message.args?.[0]?.status === status)) {
        received.push(now());
        report();
      }
    });
  });
  if (id === undefined) return ws;
  ws.send(JSON.stringify({ op: 'subscribe', channel: 'swap.update', args: [id] }));
  await acked;
  return ws;
}

const clients: WebSocket[] = [];
for (let i = 0; i < count; i += 50) clients.push(...(await Promise.all(Array.from({ length: Math.min(50, count - i) }, open))));
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.startsWith('T0 ')) {
    t0 = Number(line.slice(3));
    report();
  }
});
lines.once('close', () => {
  for (const ws of clients) ws.terminate();
  process.exit(0);
});
