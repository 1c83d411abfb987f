// `ferry admin restored`, run once on a database restored from a backup, before the first `ferry start` on it (Ferry
// stopped). A backup is Ferry's past: what Ferry did after it is recovered from the chains and the Lightning node at
// start, but two things in the database itself would be reused, and must not be:
// - MuSig2 signing sessions: a session open at the backup may have signed after it; its stored nonce must never sign
//   again (a nonce that signs twice can give away the swap key). Every session is dropped; clients open new ones.
// - Swap key indexes: those handed out after the backup would be handed out again. The counter skips far ahead.
import type { Storage } from '../db/index.ts';
import { SWAP_KEY_INDEX } from '../db/index.ts';
import { clearStaleSocket } from './socket.ts';

/** Indexes skipped after a restore: more swaps than one Ferry creates between two backups; 2^31 allows ~2,000 restores. */
export const RESTORE_KEY_INDEX_SKIP = 1_000_000;

export interface RestorePrepared {
  signingSessionsDropped: number;
  /** The first swap key index the restored Ferry hands out. */
  nextSwapKeyIndex: number;
}

/** Refuses while a Ferry answers on `adminSocket`: the preparation is for a database no Ferry runs on yet. */
export async function prepareRestored(storage: Storage, adminSocket: string): Promise<RestorePrepared> {
  await clearStaleSocket(adminSocket);
  const { changes } = await storage.database.execute('DELETE FROM signing_sessions');
  const skipped = await storage.counters.nextBlock(SWAP_KEY_INDEX, RESTORE_KEY_INDEX_SKIP);
  return { signingSessionsDropped: changes, nextSwapKeyIndex: skipped + RESTORE_KEY_INDEX_SKIP };
}
