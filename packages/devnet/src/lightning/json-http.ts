// The HTTP plumbing the devnet's two Lightning faces share — LND's REST gateway and Core Lightning's clnrest —:
// JSON answers, request bodies read as one JSON object (each face refuses in its own daemon's words) and listening
// on a port of the host.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type BodyProblem = 'tooLarge' | 'notJson' | 'notObject';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The body as a JSON object ({} when empty); `refuse` makes the face's error for what is wrong with it. */
export async function readJsonObject(
  req: IncomingMessage,
  maxBytes: number,
  refuse: (problem: BodyProblem, text: string) => Error,
): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw refuse('tooLarge', '');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  const text = Buffer.concat(chunks).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse('notJson', text);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw refuse('notObject', text);
  return parsed as Record<string, unknown>;
}

/** Listens on host:port (0: any free port) and gives the URL and port bound. */
export async function listenOn(server: Server, host: string, port: number): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return { url: `http://${host}:${bound}`, port: bound };
}
