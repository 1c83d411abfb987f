// The load generator of the WebSocket memory bench, in its own process so its sockets and buffers do not weigh on
// the server's heap: opens CONNECTIONS clients to URL and prints "connected"; on a line on stdin, subscribes
// SUBSCRIPTIONS distinct random swap ids per client (messages of 100) and prints "subscribed" once every
// acknowledgement arrived; holds the connections until stdin ends.
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';

const [url, connectionsArg, subscriptionsArg] = process.argv.slice(2);
const connections = Number(connectionsArg);
const subscriptions = Number(subscriptionsArg);
const alphabet = 'ABCDEFGHIJKLMNPQRSTUVWXYZabcdefghkmnopqrstuvwxyz123456789';
const swapId = () => Array.from(randomBytes(12), (byte) => alphabet[byte % alphabet.length]).join('');

async function open(): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return ws;
}

async function subscribe(ws: WebSocket): Promise<void> {
  const messages = Math.ceil(subscriptions / 100);
  let acks = 0;
  const acked = new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.event === 'error') reject(new Error(message.error));
      if (message.event === 'subscribe' && ++acks === messages) resolve();
    });
  });
  for (let i = 0; i < messages; i++) {
    const args = Array.from({ length: Math.min(100, subscriptions - i * 100) }, swapId);
    ws.send(JSON.stringify({ op: 'subscribe', channel: 'swap.update', args }));
  }
  await acked;
}

async function inBatches(items: WebSocket[], run: (ws: WebSocket) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 50) await Promise.all(items.slice(i, i + 50).map(run));
}

const clients: WebSocket[] = [];
for (let i = 0; i < connections; i += 50) clients.push(...(await Promise.all(Array.from({ length: Math.min(50, connections - i) }, open))));
process.stdout.write('connected\n');
const lines = createInterface({ input: process.stdin });
lines.once('line', async () => {
  await inBatches(clients, subscribe);
  process.stdout.write('subscribed\n');
});
lines.once('close', () => {
  for (const ws of clients) ws.terminate();
  process.exit(0);
});
