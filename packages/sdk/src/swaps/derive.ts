// Status sets read off the machine tables, so no list of statuses is kept by hand anywhere else: which statuses a
// timeout or a payment can leave, which swaps the chain watcher must follow, which count as succeeded or failed.
import { MACHINES } from './machines.ts';
import type { AnyMachine, SwapData } from './machine.ts';

const machines = (): AnyMachine[] => Object.values(MACHINES);
const unique = (statuses: Iterable<string>): string[] => [...new Set(statuses)];

/** Statuses of `machine` with a row for `event`. */
export function statusesWith(machine: AnyMachine, event: string): string[] {
  return unique(machine.rows.filter((row) => row.event === event).map((row) => row.from));
}

/** Statuses with a row for `event` in any machine. */
export function statusesWithAny(event: string): string[] {
  return unique(machines().flatMap((machine) => statusesWith(machine, event)));
}

/** Statuses that rows for `event` lead to. */
export function statusesReachedBy(machine: AnyMachine, event: string): string[] {
  return unique(machine.rows.filter((row) => row.event === event).map((row) => row.to));
}

/**
 * Statuses reachable from the targets of `event` rows (those included), following every row except those of the
 * events in `except`: e.g. everything that can follow the decision to pay, unless the payment fails.
 */
export function statusesAfter(machine: AnyMachine, event: string, except: readonly string[] = []): string[] {
  const reached = new Set(machine.rows.filter((row) => row.event === event).map((row) => row.to));
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of machine.rows) {
      if (reached.has(row.from) && !except.includes(row.event) && !reached.has(row.to)) {
        reached.add(row.to);
        grew = true;
      }
    }
  }
  return [...reached];
}

const followedByMachine = new WeakMap<AnyMachine, string[]>();

/** Statuses from which a chain event row can still be reached: a swap in one must be followed on chain. */
export function chainFollowedStatuses(machine: AnyMachine): string[] {
  let statuses = followedByMachine.get(machine);
  if (statuses === undefined) {
    statuses = computeChainFollowed(machine);
    followedByMachine.set(machine, statuses);
  }
  return statuses;
}

// The tables are constant: computed once per machine, since every transition asks (needsChain).
function computeChainFollowed(machine: AnyMachine): string[] {
  const followed = new Set(machine.rows.filter((row) => machine.chainEvents.includes(row.event)).map((row) => row.from));
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of machine.rows) {
      if (followed.has(row.to) && !followed.has(row.from)) {
        followed.add(row.from);
        grew = true;
      }
    }
  }
  return machine.statuses.filter((status) => followed.has(status));
}

/**
 * Whether a swap still needs the chain watcher: a row of its status applies now (its guard holds) that is a chain
 * event, or that leads to a status followed on chain (itself included: a row may set what a chain row waits for).
 */
export function followsChain(machine: AnyMachine, status: string, data: SwapData): boolean {
  const followed = chainFollowedStatuses(machine);
  return machine.rows.some(
    (row) =>
      row.from === status &&
      (row.guard === undefined || machine.guards[row.guard].test(data)) &&
      (machine.chainEvents.includes(row.event) || followed.includes(row.to)),
  );
}

/** Every status in which some machine may still be followed on chain (to re-register swaps after a restart). */
export const chainFollowedInAny = (): string[] => unique(machines().flatMap(chainFollowedStatuses));

/** Statuses in which any swap has succeeded. */
export const succeededStatuses = (): string[] => unique(machines().flatMap((machine) => machine.succeeded));

/** Statuses in which any swap has failed. */
export const failedStatuses = (): string[] => unique(machines().flatMap((machine) => machine.failed));

/** Whether a transition from `from` to `to` enters a succeeded or failed status of the machine (or neither). */
export function outcomeEntered(machine: AnyMachine, from: string, to: string): 'succeeded' | 'failed' | undefined {
  if (machine.succeeded.includes(to) && !machine.succeeded.includes(from)) return 'succeeded';
  if (machine.failed.includes(to) && !machine.failed.includes(from)) return 'failed';
  return undefined;
}

/** Whether a row for `event` applies to a swap in `status` with `data` now (its guard holds), without applying it. */
export function eventApplies(machine: AnyMachine, status: string, data: SwapData, event: string): boolean {
  return machine.rows.some((row) => row.from === status && row.event === event && (row.guard === undefined || machine.guards[row.guard].test(data)));
}
