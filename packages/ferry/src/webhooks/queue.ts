// Swap status webhook calls in the database until their receiver takes them: a call that fails (network, timeout,
// non-2xx, a forbidden address) is tried again with exponential backoff (doubling from backoffMs, capped at 10
// minutes) up to `attempts` calls, then given up with a warning. Because the queue is a table, a restart or another
// instance taking over goes on with the retries; an instance takes a due call with a lease (its next_at moved past
// the call's deadline) only if no other instance took it first, so a call is never made twice at once. Calls are at
// least once: a crash between the call and its deletion repeats it.
import type { Storage } from '../db/index.ts';
import type { WebhookDelivery } from '../db/repositories/webhook-deliveries.ts';
import type { Logger } from '../log/index.ts';
import type { WebhookSender } from './sender.ts';

export interface QueueOptions {
  /** Calls per delivery before giving up. */
  attempts: number;
  /** First retry delay; doubled each time, capped at 10 minutes. */
  backoffMs: number;
  /** A call's deadline (the sender's): a taken delivery is leased for twice that. */
  timeoutMs: number;
}

const MAX_DELAY_MS = 600_000;
/** How often due deliveries are looked for, besides right after one is queued. */
const POLL_MS = 1_000;
/** Deliveries taken per look. */
const BATCH = 32;

/** The swap a delivery is about (its payload's data.id), for the log line. */
function swapOf(delivery: WebhookDelivery): string | undefined {
  try {
    const id = (JSON.parse(delivery.payload) as { data?: { id?: unknown } }).data?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

export class WebhookQueue {
  private timer?: NodeJS.Timeout;
  private pumping?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    private readonly sender: WebhookSender,
    private readonly options: QueueOptions,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.pump(), Math.min(POLL_MS, Math.max(this.options.backoffMs, 50)));
    this.timer.unref();
    void this.pump();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.pumping;
  }

  async enqueue(url: string, payload: unknown): Promise<void> {
    await this.storage.webhookDeliveries.add(url, JSON.stringify(payload));
    void this.pump();
  }

  /** Calls every due delivery once; a pump already running is followed by one more. */
  pump(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.pumping !== undefined) {
      this.again = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      try {
        do {
          this.again = false;
          const due = await this.storage.webhookDeliveries.due(BATCH);
          await Promise.all(due.map((delivery) => this.attempt(delivery)));
          if (due.length === BATCH) this.again = true;
        } while (this.again && !this.stopped);
      } catch (error) {
        this.logger.warn('webhook queue failed', { error: String(error) });
      } finally {
        this.pumping = undefined;
      }
    })();
    return this.pumping;
  }

  private async attempt(delivery: WebhookDelivery): Promise<void> {
    const deliveries = this.storage.webhookDeliveries;
    if (!(await deliveries.take(delivery, Date.now() + 2 * this.options.timeoutMs + 1_000))) return;
    const failure = await this.sender.send(delivery.url, delivery.payload);
    const attempts = delivery.attempts + 1;
    if (failure === undefined) return deliveries.delete(delivery.id);
    if (attempts >= this.options.attempts) {
      this.logger.warn('webhook given up', { swap: swapOf(delivery), url: delivery.url, attempts, reason: failure });
      return deliveries.delete(delivery.id);
    }
    const delay = Math.min(this.options.backoffMs * 2 ** (attempts - 1), MAX_DELAY_MS);
    this.logger.debug('webhook failed, retrying', { swap: swapOf(delivery), url: delivery.url, attempt: attempts, reason: failure, delayMs: delay });
    await deliveries.retryAt(delivery.id, attempts, Date.now() + delay);
  }
}
