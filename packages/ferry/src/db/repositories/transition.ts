// The engine's one write: a swap's new state and the effects it implies, together or not at all.
import { isDatabase, type Queryable } from '../types.ts';
import type { Clock } from './common.ts';
import { EffectRepository, type EffectRecord, type NewEffect } from './effects.ts';
import { SwapRepository, type SwapRecord, type SwapUpdate } from './swaps.ts';

export type TransitionResult =
  | { applied: true; swap: SwapRecord; effects: EffectRecord[] }
  /** The swap was missing or had moved on (status or version guard); nothing was written. */
  | { applied: false };

/**
 * Applies the guarded swap update and appends its effects atomically. Given a transaction handle it
 * writes inside that transaction; given the database it opens one of its own.
 */
export async function saveTransition(
  q: Queryable,
  update: SwapUpdate,
  effects: readonly NewEffect[],
  now: Clock = Date.now,
): Promise<TransitionResult> {
  if (isDatabase(q)) return q.transaction((tx) => saveTransition(tx, update, effects, now));
  const swap = await new SwapRepository(q, now).updateReturning(update);
  if (!swap) return { applied: false };
  const added = await new EffectRepository(q, now).add(swap.id, effects);
  return { applied: true, swap, effects: added };
}
