// The swap domain: statuses, ids, pairs, amounts and the state machine of each swap type. No I/O.
export * from './status.ts';
export * from './ids.ts';
export * from './amounts.ts';
export * from './pairs.ts';
export * from './machine.ts';
export * from './machines.ts';
export { submarineMachine, SUBMARINE_EVENTS, SUBMARINE_EFFECTS, SUBMARINE_STATUSES } from './submarine-machine.ts';
export type { SubmarineEvent, SubmarineEffect, SubmarineStatus, LockupLoss } from './submarine-machine.ts';
export { lockupLossReason } from './submarine-machine.ts';
export { reverseMachine, REVERSE_EVENTS, REVERSE_EFFECTS, REVERSE_STATUSES } from './reverse-machine.ts';
export type { ReverseEvent, ReverseEffect, ReverseStatus } from './reverse-machine.ts';
export { chainMachine, CHAIN_EVENTS, CHAIN_EFFECTS, CHAIN_STATUSES } from './chain-machine.ts';
export type { ChainEvent, ChainEffect, ChainStatus, ChainSide, ChainSwapData } from './chain-machine.ts';
export { classifySubmarineLockup, lockupReplaceable, type LockupObservation, type LockupPolicy } from './lockup.ts';
export * from './derive.ts';
