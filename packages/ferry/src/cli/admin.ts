// `ferry admin`: the operator's commands, sent to a running Ferry over its admin unix socket (admin/socket.ts),
// never over the public API. Answers are printed as JSON.
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { adminSocketPath } from '../admin/socket.ts';
import type { FerryConfig } from '../config/index.ts';

export const adminUsage = `admin (talks to a running \`ferry start\` over <dataDir>/admin.sock):
  ferry admin swaps [--status S] [--limit N]   latest swaps (id, type, pair, status, times)
  ferry admin swap ID                          one swap: its data and effect log
  ferry admin balances                         operator wallets per chain, Lightning channels
  ferry admin retry ID                         the swap's failed effects pending again, and run
  ferry admin refund ID                        refund Ferry's lockup now if the swap's timeout has passed
  ferry admin alerts [--all] [--limit N]       active operator alerts (--all: the latest, cleared ones too)
  ferry admin backup FILE                      a consistent copy of the live SQLite database in FILE (never overwritten)
  ferry admin restored                         (Ferry stopped) once on a restored database, before starting on it:
                                               drops MuSig2 signing sessions, skips swap key indexes used since
  ferry admin alerts clear KIND KEY            acknowledge an active alert (it is raised again if the condition returns)
`;

function call(socketPath: string, method: string, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs one admin command; returns the exit code (2: usage, 1: refused or Ferry not reachable). */
export async function runAdminCommand(sub: string | undefined, rest: string[], flags: Record<string, string | true>, config: FerryConfig): Promise<number> {
  if (sub === 'restored' && rest.length === 0) return runRestored(config);
  const id = rest[0] === undefined ? undefined : encodeURIComponent(rest[0]);
  let target: [string, string] | undefined;
  if (sub === 'swaps') {
    const query = new URLSearchParams();
    if (typeof flags.status === 'string') query.set('status', flags.status);
    if (typeof flags.limit === 'string') query.set('limit', flags.limit);
    target = ['GET', `/swaps${query.size > 0 ? `?${query}` : ''}`];
  } else if (sub === 'balances') target = ['GET', '/balances'];
  else if (sub === 'swap' && id) target = ['GET', `/swaps/${id}`];
  else if (sub === 'retry' && id) target = ['POST', `/swaps/${id}/retry`];
  else if (sub === 'refund' && id) target = ['POST', `/swaps/${id}/refund`];
  else if (sub === 'backup' && rest.length === 1) target = ['POST', `/backup?${new URLSearchParams({ file: resolve(rest[0]) })}`];
  else if (sub === 'alerts' && rest[0] === 'clear') {
    if (rest.length === 3) target = ['POST', `/alerts/${encodeURIComponent(rest[1])}/${encodeURIComponent(rest[2])}/clear`];
  } else if (sub === 'alerts' && rest.length === 0) {
    const query = new URLSearchParams();
    if (flags.all === true) query.set('all', '1');
    if (typeof flags.limit === 'string') query.set('limit', flags.limit);
    target = ['GET', `/alerts${query.size > 0 ? `?${query}` : ''}`];
  }
  if (!target) {
    process.stderr.write(adminUsage);
    return 2;
  }
  const socket = adminSocketPath(config.dataDir, config.admin.socketPath);
  let answer: { status: number; body: unknown };
  try {
    answer = await call(socket, ...target);
  } catch (error) {
    process.stderr.write(`ferry admin: no Ferry answers on ${socket} (${(error as Error).message}): is \`ferry start\` running on this data directory?\n`);
    return 1;
  }
  if (answer.status !== 200) {
    process.stderr.write(`ferry admin ${sub}: ${(answer.body as { error?: string }).error ?? `answered ${answer.status}`}\n`);
    return 1;
  }
  process.stdout.write(JSON.stringify(answer.body, null, 2) + '\n');
  return 0;
}

/** `ferry admin restored`: on the database itself, not over the socket (no Ferry runs on it yet). */
async function runRestored(config: FerryConfig): Promise<number> {
  const [{ openStorage, parseDatabaseUrl }, { databaseUrl }, { prepareRestored }] = await Promise.all([import('../db/index.ts'), import('../config/index.ts'), import('../admin/restored.ts')]);
  const location = parseDatabaseUrl(databaseUrl(config));
  if (location.dialect === 'sqlite' && !existsSync(location.path)) {
    process.stderr.write(`ferry admin restored: no database at ${location.path}: put the backup there first\n`);
    return 1;
  }
  const storage = await openStorage(databaseUrl(config));
  try {
    const prepared = await prepareRestored(storage, adminSocketPath(config.dataDir, config.admin.socketPath));
    process.stdout.write(JSON.stringify(prepared, null, 2) + '\n');
    return 0;
  } catch (error) {
    process.stderr.write(`ferry admin restored: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await storage.close();
  }
}
