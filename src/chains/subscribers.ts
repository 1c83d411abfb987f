// Delivers watcher events to subscribers one at a time, awaiting async handlers. A throwing handler is
// logged and does not keep the others (or the watcher) from going on.
import type { ChainEventHandler, ChainEvents, ChainEventType, ChainSubscriber } from './events.ts';
import type { WatcherLogger } from './logger.ts';

export class Subscribers {
  private readonly subscribers = new Set<ChainSubscriber>();

  constructor(private readonly logger: WatcherLogger) {}

  add(subscriber: ChainSubscriber): () => void {
    this.subscribers.add(subscriber);
    return () => {
      this.subscribers.delete(subscriber);
    };
  }

  on<K extends ChainEventType>(type: K, handler: ChainEventHandler<K>): () => void {
    return this.add({ [type]: handler } as ChainSubscriber);
  }

  async emit<K extends ChainEventType>(type: K, event: ChainEvents[K]): Promise<void> {
    for (const subscriber of [...this.subscribers]) {
      const handler = subscriber[type] as ChainEventHandler<K> | undefined;
      if (!handler) continue;
      try {
        await handler(event);
      } catch (error) {
        this.logger.error(`chain watcher: ${type} subscriber failed`, { error: String(error) });
      }
    }
  }
}
