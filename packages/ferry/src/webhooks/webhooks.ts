// Swap status webhooks: kept per swap in the kv table (key "webhook:<id>"), called on every status change the engine
// publishes that the hook asked for, through the delivery queue (queue.ts: in the database, retried with backoff,
// across restarts). Calls are at least once: a status may be announced twice around registration, and retried
// calls may arrive out of order (each carries its status, receivers keep the latest).
import { createHash } from 'node:crypto';
import type { Storage } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import type { Webhook } from './hook.ts';
import type { WebhookQueue } from './queue.ts';

const key = (id: string) => `webhook:${id}`;

export class Webhooks {
  constructor(
    private readonly storage: Storage,
    private readonly queue: WebhookQueue,
    private readonly logger: Logger,
  ) {}

  async register(id: string, hook: Webhook): Promise<void> {
    await this.storage.kv.set(key(id), JSON.stringify(hook));
  }

  /** Follows the engine's status changes; returns the function that stops. */
  connect(swaps: Pick<SwapService, 'onStatus'>): () => void {
    const stop = swaps.onStatus((id, status) => this.announce(id, status.status));
    this.queue.start();
    return () => {
      stop();
      void this.queue.stop();
    };
  }

  /** Calls the swap's webhook with a status now, as a change would (once its hook is registered). */
  announce(id: string, status: string): void {
    this.changed(id, status).catch((error: Error) => this.logger.warn('webhook lookup failed', { swap: id, error: error.message }));
  }

  private async changed(id: string, status: string): Promise<void> {
    const stored = await this.storage.kv.get(key(id));
    if (stored === undefined) return;
    const hook = JSON.parse(stored) as Webhook;
    if (hook.status.length > 0 && !hook.status.includes(status)) return;
    const shownId = hook.hashSwapId ? createHash('sha256').update(id).digest('hex') : id;
    await this.queue.enqueue(hook.url, { event: 'swap.update', data: { id: shownId, status } });
  }
}
