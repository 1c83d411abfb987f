// Webhook calls waiting for their receiver (src/webhooks/queue.ts). A delivery is taken by moving its next_at to
// a lease's end only if nobody moved it first, so two instances never call the same one at once.
import type { Queryable } from '../types.ts';
import type { Clock } from './common.ts';

export interface WebhookDelivery {
  id: number;
  url: string;
  payload: string;
  attempts: number;
  nextAt: number;
}

interface Row {
  id: number;
  url: string;
  payload: string;
  attempts: number;
  next_at: number;
}

export class WebhookDeliveryRepository {
  constructor(
    private readonly q: Queryable,
    private readonly now: Clock,
  ) {}

  async add(url: string, payload: string): Promise<void> {
    const now = this.now();
    await this.q.execute('INSERT INTO webhook_deliveries (url, payload, attempts, next_at, created_at) VALUES ($1, $2, 0, $3, $3)', [url, payload, now]);
  }

  /** Deliveries due now, oldest first. */
  async due(limit: number): Promise<WebhookDelivery[]> {
    const rows = await this.q.query<Row>('SELECT id, url, payload, attempts, next_at FROM webhook_deliveries WHERE next_at <= $1 ORDER BY next_at, id LIMIT $2', [
      this.now(),
      limit,
    ]);
    return rows.map((row) => ({ id: row.id, url: row.url, payload: row.payload, attempts: row.attempts, nextAt: row.next_at }));
  }

  /** Takes the delivery until `leaseUntil`; false when another taker moved it first. */
  async take(delivery: WebhookDelivery, leaseUntil: number): Promise<boolean> {
    const result = await this.q.execute('UPDATE webhook_deliveries SET next_at = $3 WHERE id = $1 AND next_at = $2', [delivery.id, delivery.nextAt, leaseUntil]);
    return result.changes > 0;
  }

  async retryAt(id: number, attempts: number, nextAt: number): Promise<void> {
    await this.q.execute('UPDATE webhook_deliveries SET attempts = $2, next_at = $3 WHERE id = $1', [id, attempts, nextAt]);
  }

  async delete(id: number): Promise<void> {
    await this.q.execute('DELETE FROM webhook_deliveries WHERE id = $1', [id]);
  }

  async count(): Promise<number> {
    const rows = await this.q.query<{ count: number }>('SELECT COUNT(*) AS count FROM webhook_deliveries', []);
    return Number(rows[0].count);
  }
}
