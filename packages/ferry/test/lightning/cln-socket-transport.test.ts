// Ferry's transport to lightningd's JSON-RPC unix socket against a socket that answers as lightningd does:
// JSON-RPC 2.0 with named params, answers (each ending with a blank line) matched by id whatever their order,
// errors as ClnRestError with lightningd's code, and a closed socket failing the calls in flight.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClnSocketTransport } from '../../src/lightning/cln/socket-transport.ts';
import { ClnRestError } from '../../src/lightning/cln/transport.ts';

describe('ClnSocketTransport', () => {
  let dir: string;
  let server: Server;
  const requests: { jsonrpc: string; id: number; method: string; params: unknown }[] = [];
  const sockets: Socket[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-cln-socket-'));
    server = createServer((socket) => {
      sockets.push(socket);
      let buffer = '';
      const held: string[] = [];
      socket.on('data', (chunk) => {
        buffer += chunk.toString();
        // requests arrive back to back; this stand-in reads whole objects by counting braces
        for (;;) {
          let depth = 0;
          let end = -1;
          for (let i = 0; i < buffer.length; i++) {
            if (buffer[i] === '{') depth++;
            else if (buffer[i] === '}' && --depth === 0) {
              end = i + 1;
              break;
            }
          }
          if (end === -1) break;
          const request = JSON.parse(buffer.slice(0, end)) as (typeof requests)[number];
          buffer = buffer.slice(end);
          requests.push(request);
          let answer: unknown;
          if (request.method === 'getinfo') answer = { jsonrpc: '2.0', id: request.id, result: { id: '02ab', blockheight: 7 } };
          else if (request.method === 'slow') {
            held.push(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { slow: true } }) + '\n\n');
            continue;
          } else if (request.method === 'hang') continue;
          else answer = { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `Unknown command '${request.method}'` } };
          socket.write(JSON.stringify(answer) + '\n\n');
          // a held (slower) answer goes out after a later one
          for (const text of held.splice(0)) socket.write(text);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(join(dir, 'lightning-rpc'), resolve));
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  test('named params, answers matched by id out of order, errors with their code', async () => {
    const rpc = new ClnSocketTransport({ path: join(dir, 'lightning-rpc') });
    const slow = rpc.call<{ slow: boolean }>('slow', { a: 1, skipped: undefined });
    const info = await rpc.call<{ id: string }>('getinfo');
    assert.deepEqual(info, { id: '02ab', blockheight: 7 });
    assert.deepEqual(await slow, { slow: true });
    const slowRequest = requests.find((r) => r.method === 'slow')!;
    assert.equal(slowRequest.jsonrpc, '2.0');
    assert.deepEqual(slowRequest.params, { a: 1 }, 'named params, undefined left out');
    await assert.rejects(rpc.call('listholdinvoices'), (error: unknown) => {
      assert.ok(error instanceof ClnRestError, String(error));
      assert.equal(error.code, -32601);
      assert.equal(error.httpStatus, 0);
      assert.equal(error.message, "Unknown command 'listholdinvoices'");
      return true;
    });
    rpc.close();
  });

  test('a call unanswered by its deadline fails; a closed connection fails the calls in flight', async () => {
    const rpc = new ClnSocketTransport({ path: join(dir, 'lightning-rpc') });
    await assert.rejects(rpc.call('hang', {}, 100), /did not answer hang within 100 ms/);
    const pending = rpc.call('hang', {}, 10_000);
    await new Promise((resolve) => setImmediate(resolve));
    for (const socket of sockets) socket.destroy();
    await assert.rejects(pending, /connection closed|lightning-rpc/);
    // the next call opens a new connection
    assert.deepEqual(await rpc.call('getinfo'), { id: '02ab', blockheight: 7 });
    rpc.close();
  });
});
