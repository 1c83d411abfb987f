// The admin interface: JSON over HTTP on the unix socket (see socket.ts), for `ferry admin`. Routes:
// GET /swaps?status=&limit=, GET /swaps/{id}, GET /balances, POST /swaps/{id}/retry, POST /swaps/{id}/refund,
// GET /alerts?all=1&limit=, POST /alerts/{kind}/{key}/clear, POST /backup?file=.
import { chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Logger } from '../log/index.ts';
import { clearStaleSocket } from './socket.ts';
import { AdminError, type AdminService } from './service.ts';

async function route(service: AdminService, method: string, url: URL): Promise<unknown> {
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (method === 'GET' && parts.length === 1 && parts[0] === 'swaps') {
    const limit = Number(url.searchParams.get('limit') ?? 50);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new AdminError(400, 'limit must be an integer from 1 to 10000');
    return service.swaps({ status: url.searchParams.get('status') ?? undefined, limit });
  }
  if (method === 'GET' && parts.length === 1 && parts[0] === 'balances') return service.balances();
  if (method === 'GET' && parts.length === 1 && parts[0] === 'alerts') {
    const limit = Number(url.searchParams.get('limit') ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new AdminError(400, 'limit must be an integer from 1 to 10000');
    return service.alerts({ all: url.searchParams.get('all') === '1', limit });
  }
  if (method === 'POST' && parts.length === 1 && parts[0] === 'backup') {
    const file = url.searchParams.get('file');
    if (!file) throw new AdminError(400, 'file is required');
    return service.backup(file);
  }
  if (method === 'POST' && parts.length === 4 && parts[0] === 'alerts' && parts[3] === 'clear') return service.clearAlert(parts[1], parts[2]);
  if (parts.length === 2 && parts[0] === 'swaps' && method === 'GET') return service.swap(parts[1]);
  if (parts.length === 3 && parts[0] === 'swaps' && method === 'POST' && parts[2] === 'retry') return service.retry(parts[1]);
  if (parts.length === 3 && parts[0] === 'swaps' && method === 'POST' && parts[2] === 'refund') return service.refund(parts[1]);
  throw new AdminError(404, `not found: ${method} ${url.pathname}`);
}

export async function startAdminServer(service: AdminService, path: string, logger: Logger): Promise<Server> {
  const server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => {
      const text = JSON.stringify(body, (_, value) => (typeof value === 'bigint' ? value.toString() : value));
      response.writeHead(status, { 'content-type': 'application/json' }).end(text);
    };
    route(service, request.method ?? 'GET', new URL(request.url ?? '/', 'http://admin')).then(
      (body) => answer(200, body),
      (error: Error) => {
        if (error instanceof AdminError) return answer(error.status, { error: error.message });
        logger.error('admin command failed', { error: error.stack ?? String(error) });
        answer(500, { error: error.message });
      },
    );
  });
  await clearStaleSocket(path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600); // the data directory is 0700 already; this guards a socket placed elsewhere too
  return server;
}
