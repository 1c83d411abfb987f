// An alert as JSON, one shape for every reader: `ferry admin alerts` and the operator webhook's payload.
import type { AlertRecord } from '../db/index.ts';

export const alertView = (alert: AlertRecord) => ({
  kind: alert.kind,
  key: alert.key,
  severity: alert.severity,
  message: alert.message,
  ...(alert.swapId !== undefined && { swapId: alert.swapId }),
  ...(alert.chain !== undefined && { chain: alert.chain }),
  ...(alert.pair !== undefined && { pair: alert.pair }),
  ...(alert.amount !== undefined && { amount: alert.amount }),
  details: alert.details,
  raisedAt: new Date(alert.raisedAt).toISOString(),
  ...(alert.clearedAt !== undefined && { clearedAt: new Date(alert.clearedAt).toISOString(), clearedBy: alert.clearedBy }),
});
