// Applies machine events to stored swaps: under the swap's lock, read the row, run the pure transition, and
// write the new status with its effects in one transaction (guarded by the row's version). After the commit the
// status is published and the effects handed to the runner. Nothing here performs the effects themselves.
import { UniqueViolation, type EffectRecord, type NewSwap, type Storage, type SwapRecord } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import { generateSwapId, machineFor, transition, type MachineEvent } from '../swaps/index.ts';
import { swapNotFound } from '@ferry/sdk/protocol/index.js';
import type { NamedLocks } from './locks.ts';
import type { SwapStatusBody } from '@ferry/sdk/protocol/index.js';
import { statusBody } from './status-body.ts';
import { clientKeysOf } from '../swaps/client-keys.ts';
import { clientAddressesOf } from '../swaps/client-addresses.ts';
import { StatusCache } from './status-cache.ts';

export type StatusListener = (id: string, status: SwapStatusBody) => void;

/** Told of every committed transition: the swap after it, before it, and the event applied. */
export type TransitionHook = (swap: SwapRecord, before: SwapRecord, event: MachineEvent) => void;

export type ApplyResult = { applied: true; swap: SwapRecord; effects: EffectRecord[] } | { applied: false; swap: SwapRecord };

/** How often a transition is recomputed when the row changed under it (another writer outside this process). */
const CONFLICT_RETRIES = 5;

export class SwapStore {
  private readonly listeners = new Set<StatusListener>();
  private readonly transitionHooks = new Set<TransitionHook>();
  private readonly insertHooks = new Set<(swap: SwapRecord) => void>();

  constructor(
    private readonly storage: Storage,
    private readonly locks: NamedLocks,
    private readonly enqueue: (effects: readonly EffectRecord[]) => void,
    private readonly logger: Logger,
    /** Status bodies kept for GET /v2/swap/{id}: every write of a row here drops its swap's. */
    readonly statusCache = new StatusCache(),
  ) {}

  get(id: string): Promise<SwapRecord | undefined> {
    return this.storage.swaps.get(id);
  }

  async require(id: string, type?: string): Promise<SwapRecord> {
    const swap = await this.storage.swaps.get(id);
    if (swap === undefined || (type !== undefined && swap.type !== type)) throw swapNotFound(id);
    return swap;
  }

  async insert(swap: NewSwap): Promise<SwapRecord> {
    const clientPublicKeys = clientKeysOf(swap.type, swap.data ?? {}).map((key) => key.publicKey);
    const clientAddresses = clientAddressesOf(swap.type, swap.data ?? {});
    const record = await this.storage.swaps.insert({ ...swap, clientPublicKeys, clientAddresses });
    this.statusCache.drop(record.id);
    for (const hook of this.insertHooks) hook(record);
    this.publish(record);
    return record;
  }

  /**
   * Inserts a new swap under a fresh random id, drawing another on the (unlikely) id collision; any other unique
   * violation (an invoice or preimage hash taken meanwhile) is the caller's to answer.
   */
  async insertNew(swap: Omit<NewSwap, 'id'>): Promise<SwapRecord> {
    for (;;) {
      try {
        return await this.insert({ id: generateSwapId(), ...swap });
      } catch (error) {
        if (!(error instanceof UniqueViolation) || error.column !== 'id') throw error;
      }
    }
  }

  /** Applies an event under the swap's lock. */
  dispatch(id: string, event: MachineEvent): Promise<ApplyResult> {
    return this.locks.run(id, () => this.applyLocked(id, event));
  }

  /** Applies an event; the caller must hold the swap's lock. */
  async applyLocked(id: string, event: MachineEvent): Promise<ApplyResult> {
    for (let attempt = 0; ; attempt++) {
      const swap = await this.require(id);
      const machine = machineFor(swap.type);
      const outcome = transition(machine, { status: swap.status, data: swap.data }, event);
      if (!outcome.ok) {
        this.logger.debug('event refused', { swap: id, status: swap.status, event: event.type, reason: outcome.reason });
        return { applied: false, swap };
      }
      const data = outcome.swap.data;
      const invoice = typeof data.invoice === 'string' && data.invoice !== swap.invoice ? data.invoice : undefined;
      // A user's lock names its refund address: indexed with the transition that records it, for restore by address.
      const known = new Set(clientAddressesOf(swap.type, swap.data));
      const clientAddresses = clientAddressesOf(swap.type, data).filter((address) => !known.has(address));
      const result = await this.storage.saveTransition(
        { id, expectedStatus: swap.status, expectedVersion: swap.version, status: outcome.swap.status, data, invoice, clientAddresses },
        // Each effect names the leg that performs it.
        outcome.effects.map((kind) => ({ kind, payload: { event: event.type, leg: machine.effectLegs[kind] } })),
      );
      if (!result.applied) {
        // Another writer changed the row: whatever was kept of it is older.
        this.statusCache.drop(id);
        if (attempt >= CONFLICT_RETRIES) throw new Error(`swap ${id} keeps changing under event ${event.type}`);
        continue;
      }
      this.statusCache.drop(id);
      this.logger.info('swap transition', { swap: id, from: swap.status, to: result.swap.status, event: event.type });
      for (const hook of this.transitionHooks) hook(result.swap, swap, event);
      if (outcome.changedStatus) this.publish(result.swap);
      this.enqueue(result.effects);
      return { applied: true, swap: result.swap, effects: result.effects };
    }
  }

  onStatus(listener: StatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called after every committed transition (e.g. to stop watching a finished swap's scripts). */
  onTransition(hook: TransitionHook): void {
    this.transitionHooks.add(hook);
  }

  /** Called after a new swap is stored (the swap counters of src/metrics). */
  onInsert(hook: (swap: SwapRecord) => void): void {
    this.insertHooks.add(hook);
  }

  private publish(swap: SwapRecord): void {
    const body = statusBody(swap);
    for (const listener of this.listeners) {
      try {
        listener(swap.id, body);
      } catch (error) {
        this.logger.error('status listener failed', { swap: swap.id, error: String(error) });
      }
    }
  }
}
