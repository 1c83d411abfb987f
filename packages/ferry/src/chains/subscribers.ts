// Delivers watcher events to subscribers one at a time, awaiting async handlers. A throwing handler is
// logged and does not keep the others (or the watcher) from going on. Generic over the event map, so the EVM
// contract follower delivers its own events the same way.
import type { ChainEvents } from '@ferry/sdk/chains/events.js';
import type { WatcherLogger } from './logger.ts';

export type SubscriberOf<Events> = { [K in keyof Events]?: (event: Events[K]) => void | Promise<void> };

export class Subscribers<Events extends object = ChainEvents> {
  private readonly subscribers = new Set<SubscriberOf<Events>>();

  constructor(private readonly logger: WatcherLogger) {}

  add(subscriber: SubscriberOf<Events>): () => void {
    this.subscribers.add(subscriber);
    return () => {
      this.subscribers.delete(subscriber);
    };
  }

  on<K extends keyof Events>(type: K, handler: (event: Events[K]) => void | Promise<void>): () => void {
    return this.add({ [type]: handler } as unknown as SubscriberOf<Events>);
  }

  async emit<K extends keyof Events>(type: K, event: Events[K]): Promise<void> {
    for (const subscriber of [...this.subscribers]) {
      const handler = subscriber[type];
      if (!handler) continue;
      try {
        await handler(event);
      } catch (error) {
        this.logger.error(`chain watcher: ${String(type)} subscriber failed`, { error: String(error) });
      }
    }
  }
}
