// The effect log: I/O the engine has decided on (pay an invoice, broadcast a claim, ...). Rows are
// written in the same transaction as the swap transition that caused them, executed afterwards,
// and marked done; whatever is still pending after a crash is replayed.
import type { Queryable, SqlValue } from '../types.ts';
import { parseObject, type Clock } from './common.ts';

export type EffectState = 'pending' | 'done' | 'failed';

export interface NewEffect {
  kind: string;
  payload?: Record<string, unknown>;
}

export interface EffectRecord {
  id: number;
  swapId: string;
  kind: string;
  payload: Record<string, unknown>;
  state: EffectState;
  attempts: number;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

interface EffectRow {
  id: number;
  swap_id: string;
  kind: string;
  payload: string;
  state: EffectState;
  attempts: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

function toRecord(row: EffectRow): EffectRecord {
  return {
    id: row.id,
    swapId: row.swap_id,
    kind: row.kind,
    payload: parseObject(row.payload),
    state: row.state,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class EffectRepository {
  constructor(
    private readonly q: Queryable,
    private readonly now: Clock,
  ) {}

  /**
   * Appends pending effects for a swap, in order. Build the repository on a transaction handle so
   * they commit together with the swap's transition (see saveTransition).
   */
  async add(swapId: string, effects: readonly NewEffect[]): Promise<EffectRecord[]> {
    const now = this.now();
    const added: EffectRecord[] = [];
    for (const effect of effects) {
      const rows = await this.q.query<EffectRow>(
        `INSERT INTO swap_effects (swap_id, kind, payload, state, attempts, created_at, updated_at)
         VALUES ($1, $2, $3, 'pending', 0, $4, $4)
         RETURNING *`,
        [swapId, effect.kind, JSON.stringify(effect.payload ?? {}), now],
      );
      added.push(toRecord(rows[0]));
    }
    return added;
  }

  async get(id: number): Promise<EffectRecord | undefined> {
    const rows = await this.q.query<EffectRow>('SELECT * FROM swap_effects WHERE id = $1', [id]);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Pending effects in the order they were decided, optionally for one swap. */
  async listPending(options: { swapId?: string; limit?: number } = {}): Promise<EffectRecord[]> {
    const params: SqlValue[] = [];
    let sql = `SELECT * FROM swap_effects WHERE state = 'pending'`;
    if (options.swapId !== undefined) {
      params.push(options.swapId);
      sql += ` AND swap_id = $${params.length}`;
    }
    sql += ' ORDER BY id';
    if (options.limit !== undefined) {
      params.push(options.limit);
      sql += ` LIMIT $${params.length}`;
    }
    return (await this.q.query<EffectRow>(sql, params)).map(toRecord);
  }

  /** Every effect of a swap, whatever its state, oldest first. */
  async listForSwap(swapId: string): Promise<EffectRecord[]> {
    const rows = await this.q.query<EffectRow>('SELECT * FROM swap_effects WHERE swap_id = $1 ORDER BY id', [swapId]);
    return rows.map(toRecord);
  }

  /** Pending → done. False if the effect is not pending (already done, failed, or unknown). */
  /** The operator's retry: a swap's failed effects back to pending, attempts counted anew; returns them. */
  async reopenFailed(swapId: string): Promise<EffectRecord[]> {
    const failed = (await this.listForSwap(swapId)).filter((effect) => effect.state === 'failed');
    for (const effect of failed) {
      await this.q.execute("UPDATE swap_effects SET state = 'pending', attempts = 0, updated_at = $2 WHERE id = $1 AND state = 'failed'", [
        effect.id,
        this.now(),
      ]);
    }
    const reopened = new Set(failed.map((effect) => effect.id));
    return (await this.listPending({ swapId })).filter((effect) => reopened.has(effect.id));
  }

  async markDone(id: number): Promise<boolean> {
    const result = await this.q.execute(
      `UPDATE swap_effects SET state = 'done', attempts = attempts + 1, updated_at = $2
       WHERE id = $1 AND state = 'pending'`,
      [id, this.now()],
    );
    return result.changes > 0;
  }

  /** Pending → failed for good, recording why. False if the effect is not pending. */
  async markFailed(id: number, error: string): Promise<boolean> {
    const result = await this.q.execute(
      `UPDATE swap_effects SET state = 'failed', attempts = attempts + 1, last_error = $2, updated_at = $3
       WHERE id = $1 AND state = 'pending'`,
      [id, error, this.now()],
    );
    return result.changes > 0;
  }

  /** A failed attempt that will be retried: the effect stays pending. False if it is not pending. */
  async recordAttempt(id: number, error: string): Promise<boolean> {
    const result = await this.q.execute(
      `UPDATE swap_effects SET attempts = attempts + 1, last_error = $2, updated_at = $3
       WHERE id = $1 AND state = 'pending'`,
      [id, error, this.now()],
    );
    return result.changes > 0;
  }
}
