// In-process fan-out of swap status changes: the engine publishes once, every WebSocket connection and SSE
// stream that watches a swap hears about it. Listeners are indexed by swap id, so a change costs O(watchers of
// that swap), not O(connections).
import type { SwapService, SwapStatusBody } from '../protocol/index.ts';

export type StatusListener = (id: string, status: SwapStatusBody) => void;

export class StatusFeed {
  private readonly listeners = new Map<string, Set<StatusListener>>();

  /** @param onListenerError called when a listener throws; one broken subscriber must not starve the others. */
  constructor(private readonly onListenerError: (error: unknown, id: string) => void = () => {}) {}

  /** Feeds this fan-out from a status source; returns the function that stops it. */
  connect(source: Pick<SwapService, 'onStatus'>): () => void {
    return source.onStatus((id, status) => this.publish(id, status));
  }

  publish(id: string, status: SwapStatusBody): void {
    const set = this.listeners.get(id);
    if (!set) return;
    // a listener may unsubscribe (itself or others) while we iterate: walk a snapshot
    for (const listener of [...set]) {
      try {
        listener(id, status);
      } catch (error) {
        this.onListenerError(error, id);
      }
    }
  }

  /** Watches one swap; returns the function that stops watching. Calling it twice is harmless. */
  subscribe(id: string, listener: StatusListener): () => void {
    let set = this.listeners.get(id);
    if (!set) {
      set = new Set();
      this.listeners.set(id, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(id);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(id);
    };
  }

  /** Number of (swap, listener) pairs; lets tests and operators see that disconnects clean up. */
  get size(): number {
    let total = 0;
    for (const set of this.listeners.values()) total += set.size;
    return total;
  }
}
