// The baseline of the HTTP benches, in a process of its own as Ferry is: a bare node:http server doing the least a
// JSON API can. A POST's body is read and parsed and answered 201 with a small JSON object naming a new id; a GET is
// answered 200 with a fixed status body. Prints its URL as one line once listening; stops when stdin ends.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const status = JSON.stringify({ status: 'invoice.set' });

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let body = status;
    let code = 200;
    if (request.method === 'POST') {
      const parsed = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      body = JSON.stringify({ id: randomBytes(6).toString('hex'), keys: Object.keys(parsed).length });
      code = 201;
    }
    response.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
