// The operator webhook (alerts.webhookUrl): each alert raised or cleared is POSTed as
// {"event": "alert.raised" | "alert.cleared", "data": {kind, severity, key, message, ...}}, signed as swap webhooks
// are (src/webhooks/sender.ts: X-Ferry-Timestamp, X-Ferry-Signature = HMAC-SHA256 of "<timestamp>.<body>") but under
// a secret of its own, so a swap webhook receiver cannot forge operator alerts. The pending call is a column of the
// alert's row: taken with a lease (two instances never make it at once), retried with exponential backoff across
// restarts, given up with an error line after `attempts`. Nothing here runs on the engine's path: a raise only
// kicks the pump.
import type { AlertRecord, AlertRepository } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import type { WebhookSender } from '../webhooks/sender.ts';
import { NEWS, type AlertNotifications } from './stored-alerts.ts';
import { alertView } from './view.ts';

export interface NotifierOptions {
  url: string;
  attempts: number;
  backoffMs: number;
  timeoutMs: number;
}

const MAX_DELAY_MS = 600_000;
const POLL_MS = 1_000;
const BATCH = 16;

/** What the receiver gets for an alert. */
export function alertPayload(alert: AlertRecord): { event: string; data: Record<string, unknown> } {
  return {
    // news is kept cleared from the start: its one call is the raise
    event: alert.clearedAt === undefined || NEWS.has(alert.kind) ? 'alert.raised' : 'alert.cleared',
    data: alertView(alert),
  };
}

export class AlertNotifier implements AlertNotifications {
  private timer?: NodeJS.Timeout;
  private pumping?: Promise<void>;
  private again = false;
  private stopped = true;

  constructor(
    private readonly alerts: AlertRepository,
    private readonly sender: WebhookSender,
    private readonly options: NotifierOptions,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), Math.min(POLL_MS, Math.max(this.options.backoffMs, 50)));
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.pumping;
  }

  kick(): void {
    void this.pump();
  }

  private pump(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.pumping !== undefined) {
      this.again = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      try {
        do {
          this.again = false;
          const due = await this.alerts.dueNotifications(BATCH);
          await Promise.all(due.map((alert) => this.attempt(alert)));
          if (due.length === BATCH) this.again = true;
        } while (this.again && !this.stopped);
      } catch (error) {
        this.logger.warn('operator webhook queue failed', { error: String(error) });
      } finally {
        this.pumping = undefined;
      }
    })();
    return this.pumping;
  }

  private async attempt(alert: AlertRecord): Promise<void> {
    const lease = Date.now() + 2 * this.options.timeoutMs + 1_000;
    if (!(await this.alerts.takeNotification(alert, lease))) return;
    const failure = await this.sender.send(this.options.url, JSON.stringify(alertPayload(alert)));
    if (failure === undefined) return this.alerts.notified(alert.id, lease);
    const attempts = alert.notifyAttempts + 1;
    if (attempts >= this.options.attempts) {
      this.logger.error('operator webhook given up', { kind: alert.kind, key: alert.key, attempts, reason: failure });
      return this.alerts.notified(alert.id, lease);
    }
    const delay = Math.min(this.options.backoffMs * 2 ** (attempts - 1), MAX_DELAY_MS);
    this.logger.warn('operator webhook failed, retrying', { kind: alert.kind, key: alert.key, attempt: attempts, reason: failure, delayMs: delay });
    await this.alerts.retryNotification(alert.id, attempts, Date.now() + delay, lease);
  }
}
