// Operator alerts as Ferry runs them (startFerry): each kept in the database until cleared, so a raise is one alert
// per (kind, key) across restarts and across instances sharing PostgreSQL; the instance whose raise recorded it logs
// it once at its severity, counts it (ferry_alerts_total) and queues the operator webhook's call (notifier.ts).
// Raising never fails its caller: a database that cannot record the alert still gets the log line. A kind that only
// reports news (lockupFound: the swap goes on) is told the same way and kept as cleared at once: nothing stays active.
import type { AlertRepository } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import type { AlertInput, AlertKind, AlertSeverity, OperatorAlerts } from './types.ts';

export interface AlertNotifications {
  /** Looks for due webhook calls now (one was just queued). */
  kick(): void;
}

export type RaisedListener = (kind: AlertKind, severity: AlertSeverity) => void;

/** Kinds that report an event rather than a condition: nothing to clear later. */
export const NEWS: ReadonlySet<string> = new Set(['lockupFound']);

export class StoredAlerts implements OperatorAlerts {
  private readonly raisedListeners = new Set<RaisedListener>();

  constructor(
    private readonly alerts: AlertRepository,
    private readonly logger: Logger,
    /** The operator webhook, when one is configured. */
    private readonly notifications?: AlertNotifications,
  ) {}

  /** Called once per alert this instance recorded (the Prometheus counter). */
  onRaised(listener: RaisedListener): () => void {
    this.raisedListeners.add(listener);
    return () => this.raisedListeners.delete(listener);
  }

  async raise(alert: AlertInput): Promise<void> {
    const { message, severity, details, ...fields } = alert;
    let recorded: boolean;
    try {
      recorded = await this.alerts.raise({ ...alert, notify: this.notifications !== undefined });
    } catch (error) {
      this.logger[severity](`alert: ${message}`, { ...fields, ...details });
      this.logger.error('alert not recorded', { kind: alert.kind, key: alert.key, error: String(error) });
      return;
    }
    if (!recorded) return;
    this.logger[severity](`alert: ${message}`, { ...fields, ...details });
    if (NEWS.has(alert.kind)) await this.alerts.clear(alert.kind, alert.key, 'condition', false).catch(() => undefined);
    for (const listener of this.raisedListeners) listener(alert.kind, severity);
    this.notifications?.kick();
  }

  async clear(kind: AlertKind, key: string): Promise<void> {
    await this.end(kind, key, 'condition');
  }

  /** The operator's acknowledgement (`ferry admin alerts clear`); false when no such alert is active. */
  async acknowledge(kind: string, key: string): Promise<boolean> {
    return this.end(kind, key, 'operator');
  }

  private async end(kind: string, key: string, by: 'condition' | 'operator'): Promise<boolean> {
    let cleared;
    try {
      cleared = await this.alerts.clear(kind, key, by, this.notifications !== undefined);
    } catch (error) {
      this.logger.warn('alert not cleared', { kind, key, error: String(error) });
      return false;
    }
    if (cleared === undefined) return false;
    this.logger.info(`alert cleared: ${cleared.message}`, { kind, key, by });
    this.notifications?.kick();
    return true;
  }
}
