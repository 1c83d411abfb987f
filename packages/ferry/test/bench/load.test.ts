// The HTTP benches' tools measure what they claim: the load process sends each request of its list once (an
// invoice twice would be refused), counts every answer by status and refuses a run with unexpected ones; the
// profile summary counts self time where it was spent and Ferry's functions over their callees, idle left out.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runLoad } from '../../bench/load/job.ts';
import { moduleOf, summarise, type CpuProfile } from '../../bench/load/profile-summary.ts';

const received: string[] = [];
let server: Server;
let url: string;

before(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push(body);
      response.writeHead(body.includes('"refuse"') ? 400 : 201, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((done) => server.close(() => done())));

test('each request of the list is sent once, over several connections', async () => {
  received.length = 0;
  const requests = Array.from({ length: 300 }, (_, i) => ({ path: '/v2/swap/reverse', body: JSON.stringify({ i }) }));
  const result = await runLoad({ targets: [url], method: 'POST', requests, connections: 8, amount: requests.length }, 201);
  assert.equal(result.responses, 300);
  assert.deepEqual(result.statuses, { 201: 300 });
  assert.deepEqual([...received].sort(), requests.map((r) => r.body).sort());
  assert.ok(result.seconds > 0 && result.perSecond > 0 && result.p50Ms <= result.p99Ms);
});

test('a run with an unexpected status is refused', async () => {
  const requests = [{ path: '/', body: '{"refuse": true}' }, { path: '/', body: '{}' }];
  await assert.rejects(runLoad({ targets: [url], method: 'POST', requests, connections: 1, amount: 2 }, 201), /expected only 201/);
});

test('the profile summary: self time by function and module, Ferry functions by total time, idle left out', () => {
  const root = new URL('../../', import.meta.url).href;
  const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 5] },
      { id: 2, callFrame: frame('createSwap', `${root}src/engine/create.ts`), children: [3, 4] },
      { id: 3, callFrame: frame('mod', `${root}node_modules/@noble/curves/abstract/modular.js`) },
      { id: 4, callFrame: frame('exec', '') },
      { id: 5, callFrame: frame('(idle)', '') },
    ],
    // 4 busy samples: 2 in noble, 1 in SQLite's exec, 1 in createSwap itself; 4 idle.
    samples: [3, 3, 4, 2, 5, 5, 5, 5],
    startTime: 0,
    endTime: 8_000,
  };
  const text = summarise(profile).join('\n');
  assert.match(text, /4 ms busy, 4 ms idle/);
  assert.match(text, /50\.0%\s+2 ms\s+mod @noble\/curves:1/);
  assert.match(text, /top modules:[\s\S]*50\.0%\s+2 ms\s+@noble\/curves/);
  assert.match(text, /100\.0%\s+4 ms\s+createSwap src\/engine\/create\.ts/);
  assert.equal(moduleOf('node:internal/streams/readable', 'read'), 'node:internal/streams');
  assert.equal(moduleOf('', '(garbage collector)'), '(garbage collector)');
});
