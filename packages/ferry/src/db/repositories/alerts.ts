// Operator alerts in the database (src/alerts): raised once per active (kind, key) whichever instance raises it
// (the partial unique index of migration 7 decides), listed for `ferry admin alerts`, cleared by the condition or by
// the operator, and the operator webhook's pending calls, taken with a lease as webhook deliveries are.
import type { Queryable } from '../types.ts';
import type { Clock } from './common.ts';

export interface NewAlert {
  kind: string;
  key: string;
  severity: string;
  message: string;
  swapId?: string;
  chain?: string;
  pair?: string;
  amount?: number;
  details?: Record<string, unknown>;
  /** Queue a webhook call for it now. */
  notify: boolean;
}

export interface AlertRecord {
  id: number;
  kind: string;
  key: string;
  severity: string;
  message: string;
  swapId?: string;
  chain?: string;
  pair?: string;
  amount?: number;
  details: Record<string, unknown>;
  raisedAt: number;
  clearedAt?: number;
  /** 'condition' (the check saw it end) or 'operator' (`ferry admin alerts clear`). */
  clearedBy?: string;
  notifyAttempts: number;
  notifyNextAt?: number;
}

interface Row {
  id: number | string;
  kind: string;
  alert_key: string;
  severity: string;
  message: string;
  swap_id: string | null;
  chain: string | null;
  pair: string | null;
  amount: number | string | null;
  details: string;
  raised_at: number | string;
  cleared_at: number | string | null;
  cleared_by: string | null;
  notify_attempts: number | string;
  notify_next_at: number | string | null;
}

const COLUMNS =
  'id, kind, alert_key, severity, message, swap_id, chain, pair, amount, details, raised_at, cleared_at, cleared_by, notify_attempts, notify_next_at';

function record(row: Row): AlertRecord {
  return {
    id: Number(row.id),
    kind: row.kind,
    key: row.alert_key,
    severity: row.severity,
    message: row.message,
    ...(row.swap_id !== null && { swapId: row.swap_id }),
    ...(row.chain !== null && { chain: row.chain }),
    ...(row.pair !== null && { pair: row.pair }),
    ...(row.amount !== null && { amount: Number(row.amount) }),
    details: JSON.parse(row.details) as Record<string, unknown>,
    raisedAt: Number(row.raised_at),
    ...(row.cleared_at !== null && { clearedAt: Number(row.cleared_at) }),
    ...(row.cleared_by !== null && { clearedBy: row.cleared_by }),
    notifyAttempts: Number(row.notify_attempts),
    ...(row.notify_next_at !== null && { notifyNextAt: Number(row.notify_next_at) }),
  };
}

export class AlertRepository {
  constructor(
    private readonly q: Queryable,
    private readonly now: Clock,
  ) {}

  /** Records the alert unless the same (kind, key) is active; true when this call raised it. */
  async raise(alert: NewAlert): Promise<boolean> {
    const now = this.now();
    const result = await this.q.execute(
      `INSERT INTO operator_alerts (kind, alert_key, severity, message, swap_id, chain, pair, amount, details, raised_at, notify_attempts, notify_next_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, $11)
       ON CONFLICT (kind, alert_key) WHERE cleared_at IS NULL DO NOTHING`,
      [
        alert.kind,
        alert.key,
        alert.severity,
        alert.message,
        alert.swapId ?? null,
        alert.chain ?? null,
        alert.pair ?? null,
        alert.amount === undefined ? null : Math.round(alert.amount),
        JSON.stringify(alert.details ?? {}),
        now,
        alert.notify ? now : null,
      ],
    );
    return result.changes > 0;
  }

  /** Clears the active alert of (kind, key); the cleared row, or undefined when none was active. */
  async clear(kind: string, key: string, by: 'condition' | 'operator', notify: boolean): Promise<AlertRecord | undefined> {
    const now = this.now();
    const rows = await this.q.query<Row>(
      `UPDATE operator_alerts SET cleared_at = $3, cleared_by = $4, notify_attempts = CASE WHEN $5 = 1 THEN 0 ELSE notify_attempts END,
         notify_next_at = CASE WHEN $5 = 1 THEN $3 ELSE notify_next_at END
       WHERE kind = $1 AND alert_key = $2 AND cleared_at IS NULL RETURNING ${COLUMNS}`,
      [kind, key, now, by, notify ? 1 : 0],
    );
    return rows[0] === undefined ? undefined : record(rows[0]);
  }

  async active(kind?: string): Promise<AlertRecord[]> {
    const rows = await this.q.query<Row>(
      `SELECT ${COLUMNS} FROM operator_alerts WHERE cleared_at IS NULL ${kind === undefined ? '' : 'AND kind = $1'} ORDER BY raised_at DESC, id DESC`,
      kind === undefined ? [] : [kind],
    );
    return rows.map(record);
  }

  /** Active alerts first, then the latest cleared ones, `limit` in all. */
  async recent(limit: number): Promise<AlertRecord[]> {
    const rows = await this.q.query<Row>(
      `SELECT ${COLUMNS} FROM operator_alerts ORDER BY CASE WHEN cleared_at IS NULL THEN 0 ELSE 1 END, raised_at DESC, id DESC LIMIT $1`,
      [limit],
    );
    return rows.map(record);
  }

  /** Active alerts per kind (the ferry_alerts_active gauge). */
  async activeCounts(): Promise<Map<string, number>> {
    const rows = await this.q.query<{ kind: string; n: number | string }>('SELECT kind, COUNT(*) AS n FROM operator_alerts WHERE cleared_at IS NULL GROUP BY kind');
    return new Map(rows.map((row) => [row.kind, Number(row.n)]));
  }

  /** Alerts whose webhook call is due, oldest first. */
  async dueNotifications(limit: number): Promise<AlertRecord[]> {
    const rows = await this.q.query<Row>(`SELECT ${COLUMNS} FROM operator_alerts WHERE notify_next_at <= $1 ORDER BY notify_next_at, id LIMIT $2`, [this.now(), limit]);
    return rows.map(record);
  }

  /** Takes the alert's call until `leaseUntil`; false when another instance took it first. */
  async takeNotification(alert: AlertRecord, leaseUntil: number): Promise<boolean> {
    const result = await this.q.execute('UPDATE operator_alerts SET notify_next_at = $3 WHERE id = $1 AND notify_next_at = $2', [alert.id, alert.notifyNextAt ?? null, leaseUntil]);
    return result.changes > 0;
  }

  /** The call is done (delivered or given up), unless a clear queued another meanwhile. */
  async notified(id: number, leaseUntil: number): Promise<void> {
    await this.q.execute('UPDATE operator_alerts SET notify_next_at = NULL WHERE id = $1 AND notify_next_at = $2', [id, leaseUntil]);
  }

  async retryNotification(id: number, attempts: number, nextAt: number, leaseUntil: number): Promise<void> {
    await this.q.execute('UPDATE operator_alerts SET notify_attempts = $2, notify_next_at = $3 WHERE id = $1 AND notify_next_at = $4', [id, attempts, nextAt, leaseUntil]);
  }
}
