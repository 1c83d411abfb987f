// In-process fan-out of swap status changes: the engine publishes once, every WebSocket connection and SSE
// stream that watches a swap hears about it. Listeners are indexed by swap id, so a change costs O(watchers of
// that swap), not O(connections). A swap watched by one listener (the usual case: a wallet watches its own swaps)
// keeps that listener itself, not a set of one: a subscription then costs a map entry, which is what lets one
// process hold millions of them.
import type { SwapService, SwapStatusBody } from '@ferry/sdk/protocol/index.js';

export type StatusListener = (id: string, status: SwapStatusBody) => void;

export class StatusFeed {
  private readonly listeners = new Map<string, StatusListener | Set<StatusListener>>();

  /** @param onListenerError called when a listener throws; one broken subscriber must not starve the others. */
  constructor(private readonly onListenerError: (error: unknown, id: string) => void = () => {}) {}

  /** Feeds this fan-out from a status source; returns the function that stops it. */
  connect(source: Pick<SwapService, 'onStatus'>): () => void {
    return source.onStatus((id, status) => this.publish(id, status));
  }

  publish(id: string, status: SwapStatusBody): void {
    const held = this.listeners.get(id);
    if (!held) return;
    // a listener may unsubscribe (itself or others) while we iterate: walk a snapshot
    for (const listener of typeof held === 'function' ? [held] : [...held]) {
      try {
        listener(id, status);
      } catch (error) {
        this.onListenerError(error, id);
      }
    }
  }

  /** Watches one swap with a listener; adding the same pair twice keeps one. */
  add(id: string, listener: StatusListener): void {
    const held = this.listeners.get(id);
    if (held === undefined) this.listeners.set(id, listener);
    else if (typeof held === 'function') {
      if (held !== listener) this.listeners.set(id, new Set([held, listener]));
    } else held.add(listener);
  }

  /** Stops one listener watching one swap; removing what is not there is harmless. */
  remove(id: string, listener: StatusListener): void {
    const held = this.listeners.get(id);
    if (held === undefined) return;
    if (typeof held === 'function') {
      if (held === listener) this.listeners.delete(id);
      return;
    }
    held.delete(listener);
    if (held.size === 1) this.listeners.set(id, held.values().next().value!);
  }

  /** Watches one swap; returns the function that stops watching. Calling it twice is harmless. */
  subscribe(id: string, listener: StatusListener): () => void {
    this.add(id, listener);
    return () => this.remove(id, listener);
  }

  /** Whether anyone watches this swap (so a relay from another instance can skip reading it back). */
  watches(id: string): boolean {
    return this.listeners.has(id);
  }

  /** Number of (swap, listener) pairs; lets tests and operators see that disconnects clean up. */
  get size(): number {
    let total = 0;
    for (const held of this.listeners.values()) total += typeof held === 'function' ? 1 : held.size;
    return total;
  }
}
