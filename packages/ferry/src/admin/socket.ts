// Where the admin interface listens: a unix socket in the data directory (0700), so only the operator's account
// can reach it — no port, no password, and never on the public API.
import { connect } from 'node:net';
import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

export const adminSocketPath = (dataDir: string, configured: string): string => configured || join(dataDir, 'admin.sock');

/** Removes a socket file a dead Ferry left behind; refuses to take over one a live Ferry still answers on. */
export async function clearStaleSocket(path: string): Promise<void> {
  if (!existsSync(path)) return;
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) throw new Error(`another Ferry answers on ${path}: one Ferry per data directory`);
  unlinkSync(path);
}
