// Alerts as log lines only: what the engine raises through when no richer sink is given (library use, unit
// tests). Each (kind, key) is logged once while active.
import type { Logger } from '../log/index.ts';
import type { AlertInput, AlertKind, OperatorAlerts } from './types.ts';

export class LogAlerts implements OperatorAlerts {
  private readonly active = new Set<string>();

  constructor(private readonly logger: Logger) {}

  async raise(alert: AlertInput): Promise<void> {
    const id = `${alert.kind}:${alert.key}`;
    if (this.active.has(id)) return;
    this.active.add(id);
    const { message, severity, details, ...fields } = alert;
    this.logger[severity](`alert: ${message}`, { ...fields, ...details });
  }

  async clear(kind: AlertKind, key: string): Promise<void> {
    this.active.delete(`${kind}:${key}`);
  }
}
