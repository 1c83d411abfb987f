// Where each chain watcher resumes after a restart.
import type { Queryable } from '../types.ts';
import type { Clock } from './common.ts';

export interface Checkpoint {
  height: number;
  hash: string;
}

/** What the chain watcher needs from storage; CheckpointRepository is the real one. */
export interface CheckpointStore {
  get(chain: string): Promise<{ height: number; hash: string } | undefined>;
  set(chain: string, checkpoint: { height: number; hash: string }): Promise<void>;
}

export class CheckpointRepository implements CheckpointStore {
  constructor(
    private readonly q: Queryable,
    private readonly now: Clock,
  ) {}

  async get(chain: string): Promise<Checkpoint | undefined> {
    const rows = await this.q.query<{ height: number; block_hash: string }>(
      'SELECT height, block_hash FROM chain_checkpoints WHERE chain = $1',
      [chain],
    );
    return rows[0] ? { height: rows[0].height, hash: rows[0].block_hash } : undefined;
  }

  async set(chain: string, checkpoint: Checkpoint): Promise<void> {
    await this.q.execute(
      `INSERT INTO chain_checkpoints (chain, height, block_hash, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (chain) DO UPDATE
       SET height = excluded.height, block_hash = excluded.block_hash, updated_at = excluded.updated_at`,
      [chain, checkpoint.height, checkpoint.hash, this.now()],
    );
  }
}
