// A small typed event emitter (on, once, off, emit) for the SDK's streams: node:events is not in browsers, and
// EventTarget would make every listener unwrap a CustomEvent. Errors in a listener propagate to the emitter, as
// with Node's EventEmitter.

type Listener<A extends unknown[]> = (...args: A) => void;

export class TypedEmitter<Events extends { [K in keyof Events]: unknown[] }> {
  private readonly listeners: { [K in keyof Events]?: Listener<Events[K]>[] } = {};

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    this.listeners[event] = [...(this.listeners[event] ?? []), listener];
    return this;
  }

  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    const wrapped = (...args: Events[K]) => {
      this.off(event, wrapped);
      listener(...args);
    };
    return this.on(event, wrapped);
  }

  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    this.listeners[event] = this.listeners[event]?.filter((l) => l !== listener);
    return this;
  }

  /** Calls the listeners in the order they were added (a copy: one that removes itself does not skip the next); true when there was one. */
  emit<K extends keyof Events>(event: K, ...args: Events[K]): boolean {
    const list = this.listeners[event] ?? [];
    for (const listener of list) listener(...args);
    return list.length > 0;
  }

  listenerCount(event: keyof Events): number {
    return this.listeners[event]?.length ?? 0;
  }
}
