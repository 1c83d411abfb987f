// Operator alerts for money events: the one seam every part of Ferry raises them through (the engine's legs, the
// effect runner, the balance and confirmation checks). What an alert becomes — a log line at warn or error, a row
// `ferry admin alerts` lists, Prometheus counters, an operator webhook — is the implementation's business
// (src/alerts/). An alert has a key: raising it again while it is active is one alert, not two.

export type AlertSeverity = 'warn' | 'error';

/** What happened to the operator's money. */
export type AlertKind =
  /** A user lockup Ferry paid or locked against left the chain (reorged out, double spent). */
  | 'lockupLost'
  /** That lockup came back: the swap goes on. */
  | 'lockupFound'
  /** Coins of Ferry's are gone for good (the user claimed Ferry's lockup while theirs is lost). */
  | 'fundsLost'
  /** An effect was given up (its reason says why). */
  | 'effectFailed'
  /** A wallet or channel balance is below what the pairs' limits need. */
  | 'lowBalance'
  /** One of Ferry's claims or refunds is unconfirmed past its target. */
  | 'unconfirmed'
  /** A reverse swap's held payment was cancelled or expired while Ferry's lockup can still be claimed. */
  | 'paymentLost';

export interface AlertInput {
  kind: AlertKind;
  severity: AlertSeverity;
  /** Identifies the condition (e.g. the swap id, or `BTC` for a balance): one active alert per (kind, key). */
  key: string;
  message: string;
  swapId?: string;
  chain?: string;
  pair?: string;
  /** The money concerned, in the chain's base units (sat). */
  amount?: number;
  details?: Record<string, unknown>;
}

export interface OperatorAlerts {
  /** Raises the alert (logs it, records it, counts it, calls the operator's webhook); idempotent while active. */
  raise(alert: AlertInput): Promise<void>;
  /** The condition no longer holds (a balance refilled, a claim confirmed). */
  clear(kind: AlertKind, key: string): Promise<void>;
}
