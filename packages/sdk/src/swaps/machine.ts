// A state machine kept as data: one row per (status, event) with the next status and the effects it asks for,
// optionally behind a named guard. Rows for the same (status, event) are tried in order; the first whose guard
// holds wins. Anything without a row is refused and changes nothing. The engine persists what `transition`
// returns and performs the effects; this module does no I/O.

export type SwapData = Record<string, unknown>;

export interface MachineSwap<S extends string = string> {
  status: S;
  data: SwapData;
}

export interface MachineEvent<E extends string = string> {
  type: E;
  /** Facts the event brings; merged into the swap's data. */
  data?: SwapData;
}

export interface Guard {
  /** Shown in the diagram. */
  label: string;
  /** Tested on the swap's data before the event's data is merged in. */
  test(data: SwapData): boolean;
}

export interface TransitionRow<S extends string, E extends string, F extends string, G extends string> {
  from: S;
  event: E;
  to: S;
  effects: readonly F[];
  guard?: G;
  /** Data the row itself writes (flags such as "lockup requested"). */
  set?: SwapData;
}

/** The parts a swap type is composed of; each effect belongs to one (src/engine/legs). */
export type LegName = 'userLockup' | 'serverLockup' | 'payInvoice' | 'holdInvoice';

export interface MachineDefinition<S extends string, E extends string, F extends string, G extends string> {
  name: string;
  /** Statuses a swap of this type is created in. */
  initial: readonly S[];
  /** Statuses that end the swap for the client (rows may still leave them, e.g. a late settlement). */
  final: readonly S[];
  /** The statuses in which the swap has done what the client asked (its fee is earned). */
  succeeded: readonly S[];
  /** The statuses in which the swap has failed for the client; their failureReason is shown. */
  failed: readonly S[];
  /** The events the chain watcher brings (lockups and spends seen, confirmations): a swap is followed on chain
   * while one of them can still apply to it. */
  chainEvents: readonly E[];
  /** Which leg performs each effect. */
  effectLegs: Record<F, LegName>;
  statuses: readonly S[];
  events: readonly E[];
  effects: readonly F[];
  guards: Record<G, Guard>;
  rows: readonly TransitionRow<S, E, F, G>[];
}

export type AnyMachine = MachineDefinition<string, string, string, string>;

export type TransitionOutcome<S extends string = string, F extends string = string> =
  | { ok: true; swap: MachineSwap<S>; effects: F[]; changedStatus: boolean }
  | { ok: false; reason: 'no transition' | 'guard refused' };

export function transition<S extends string, E extends string, F extends string, G extends string>(
  machine: MachineDefinition<S, E, F, G>,
  swap: MachineSwap<S>,
  event: MachineEvent<E>,
): TransitionOutcome<S, F> {
  const candidates = machine.rows.filter((row) => row.from === swap.status && row.event === event.type);
  if (candidates.length === 0) return { ok: false, reason: 'no transition' };
  const row = candidates.find((r) => r.guard === undefined || machine.guards[r.guard].test(swap.data));
  if (row === undefined) return { ok: false, reason: 'guard refused' };
  return {
    ok: true,
    swap: { status: row.to, data: { ...swap.data, ...event.data, ...row.set } },
    effects: [...row.effects],
    changedStatus: row.to !== swap.status,
  };
}

/** Finds rows that name unknown statuses, events, effects or guards, and rows shadowed by an earlier unguarded one. */
export function checkMachine(machine: AnyMachine): string[] {
  const problems: string[] = [];
  const seenUnguarded = new Set<string>();
  for (const row of machine.rows) {
    const where = `${row.from} --${row.event}-->`;
    if (!machine.statuses.includes(row.from)) problems.push(`${where}: unknown status ${row.from}`);
    if (!machine.statuses.includes(row.to)) problems.push(`${where}: unknown status ${row.to}`);
    if (!machine.events.includes(row.event)) problems.push(`${where}: unknown event ${row.event}`);
    for (const effect of row.effects) if (!machine.effects.includes(effect)) problems.push(`${where}: unknown effect ${effect}`);
    if (row.guard !== undefined && !(row.guard in machine.guards)) problems.push(`${where}: unknown guard ${row.guard}`);
    const key = `${row.from}\u0000${row.event}`;
    if (seenUnguarded.has(key)) problems.push(`${where}: unreachable, an earlier row without a guard always wins`);
    if (row.guard === undefined) seenUnguarded.add(key);
  }
  for (const effect of machine.effects) if (!(effect in machine.effectLegs)) problems.push(`effect ${effect} names no leg`);
  for (const event of machine.chainEvents) if (!machine.events.includes(event)) problems.push(`chain event ${event} is no event`);
  for (const status of [...machine.succeeded, ...machine.failed, ...machine.final, ...machine.initial]) {
    if (!machine.statuses.includes(status)) problems.push(`listed status ${status} is no status`);
  }
  return problems;
}
