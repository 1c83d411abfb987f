// Memory per WebSocket subscription in a real Ferry: clients (a separate process) subscribe CONNECTIONS ×
// SUBSCRIPTIONS distinct swap ids; the server's heap is measured after a full GC before and after. The baseline,
// in the same run and process: the same number of subscriptions held the way connections held them before
// (one watchWithSnapshot closure set and one stop function per subscription, in a Map per connection).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startFerry } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { StatusFeed, watchWithSnapshot } from '../src/events/index.ts';
import { silentLogger } from '../src/log/index.ts';
import { ephemeralPorts } from '../test/helpers/ports.ts';

const CONNECTIONS = 200;
const SUBSCRIPTIONS = 1_000; // per connection

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function heap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

const alphabet = 'ABCDEFGHIJKLMNPQRSTUVWXYZabcdefghkmnopqrstuvwxyz123456789';
// made from bytes, as JSON.parse makes the ids the server holds: no string shared with a literal
const swapId = () => Buffer.from(Array.from(randomBytes(12), (byte) => alphabet.charCodeAt(byte % alphabet.length))).toString('latin1');

/** The former per-connection structure: Map<id, stop> filled by watchWithSnapshot, one closure per id. */
async function baselineBytes(total: number): Promise<number> {
  const feed = new StatusFeed();
  const held: Map<string, () => void>[] = [];
  const before = await heap();
  for (let c = 0; c < CONNECTIONS; c++) {
    const watching = new Map<string, () => void>();
    for (let i = 0; i < SUBSCRIPTIONS; i += 100) {
      const ids = Array.from({ length: 100 }, swapId);
      const stops = await watchWithSnapshot({ feed, ids, read: async () => undefined, onSnapshot: () => {}, onChange: () => {} });
      for (const [id, stop] of stops) watching.set(id, stop);
    }
    held.push(watching);
  }
  const bytes = (await heap()) - before;
  if (feed.size !== total) throw new Error(`baseline holds ${feed.size} subscriptions, not ${total}`);
  return bytes;
}

/** Resolves with the child's next line of output. */
function nextLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the client process exited with ${code}`)));
  });
}

export async function benchWsMemory(): Promise<string[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'ferry-bench-ws-'));
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts } });
  Object.assign(config.limits, { wsConnectionsPerIp: 0, wsMessagesPerMinute: 0 });
  const ferry = await startFerry(config, silentLogger);
  const total = CONNECTIONS * SUBSCRIPTIONS;
  try {
    const url = ferry.apiUrl.replace('http', 'ws') + '/v2/ws';
    const script = fileURLToPath(new URL('./ws-clients.ts', import.meta.url));
    const start = await heap();
    const rssStart = process.memoryUsage().rss;
    const clients = spawn(process.execPath, ['--import', 'tsx', script, url, String(CONNECTIONS), String(SUBSCRIPTIONS)], { stdio: ['pipe', 'pipe', 'inherit'] });
    await nextLine(clients); // connected
    const connected = await heap();
    clients.stdin!.write('subscribe\n');
    await nextLine(clients); // subscribed
    const subscribed = await heap();
    const rssEnd = process.memoryUsage().rss;
    clients.stdin!.end();
    await new Promise((resolve) => clients.once('exit', resolve));
    const baseline = (await baselineBytes(total)) / total;
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
    return [
      `${total.toLocaleString('en')} subscriptions: ${CONNECTIONS} connections × ${SUBSCRIPTIONS.toLocaleString('en')} distinct ids, clients in another process`,
      `Ferry: ${((subscribed - connected) / total).toFixed(0)} B of heap per subscription; ${((connected - start) / CONNECTIONS / 1024).toFixed(1)} KB per idle connection; RSS ${mb(rssStart)} -> ${mb(rssEnd)}`,
      `baseline (the former design: a watchWithSnapshot closure and stop function per subscription): ${baseline.toFixed(0)} B per subscription`,
    ];
  } finally {
    await ferry.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
