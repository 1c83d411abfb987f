// Swap status webhooks: kept per swap in the kv table (key "webhook:<id>", so no migration), called on every
// status change the engine publishes that the hook asked for. Deliveries live in memory: a restart loses the
// retries still pending, not the hooks. Calls are at least once: a status may be announced twice around
// registration, and retried calls may arrive out of order (each carries its status, receivers keep the latest).
import { createHash } from 'node:crypto';
import type { Storage } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import type { SwapService } from '../protocol/index.ts';
import type { Webhook } from './hook.ts';
import type { WebhookSender } from './sender.ts';

const key = (id: string) => `webhook:${id}`;

export class Webhooks {
  constructor(
    private readonly storage: Storage,
    private readonly sender: WebhookSender,
    private readonly logger: Logger,
  ) {}

  async register(id: string, hook: Webhook): Promise<void> {
    await this.storage.kv.set(key(id), JSON.stringify(hook));
  }

  /** Follows the engine's status changes; returns the function that stops. */
  connect(swaps: Pick<SwapService, 'onStatus'>): () => void {
    const stop = swaps.onStatus((id, status) => this.announce(id, status.status));
    return () => {
      stop();
      this.sender.close();
    };
  }

  /** Calls the swap's webhook with a status now, as a change would (once its hook is registered). */
  announce(id: string, status: string): void {
    this.changed(id, status).catch((error: Error) => this.logger.warn('webhook lookup failed', { id, error: error.message }));
  }

  private async changed(id: string, status: string): Promise<void> {
    const stored = await this.storage.kv.get(key(id));
    if (stored === undefined) return;
    const hook = JSON.parse(stored) as Webhook;
    if (hook.status.length > 0 && !hook.status.includes(status)) return;
    const shownId = hook.hashSwapId ? createHash('sha256').update(id).digest('hex') : id;
    this.sender.deliver(hook.url, { event: 'swap.update', data: { id: shownId, status } });
  }
}
