// The swap domain: statuses, ids, pairs, amounts and the state machine of each swap type. No I/O.
export * from '@ferry/sdk/swaps/status.js';
export * from './ids.ts';
export * from './amounts.ts';
export * from './pairs.ts';
export * from '@ferry/sdk/swaps/machine.js';
export * from '@ferry/sdk/swaps/machines.js';
export { submarineMachine, SUBMARINE_EVENTS, SUBMARINE_EFFECTS, SUBMARINE_STATUSES } from '@ferry/sdk/swaps/submarine-machine.js';
export type { SubmarineEvent, SubmarineEffect, SubmarineStatus, LockupLoss } from '@ferry/sdk/swaps/submarine-machine.js';
export { lockupLossReason } from '@ferry/sdk/swaps/submarine-machine.js';
export { reverseMachine, REVERSE_EVENTS, REVERSE_EFFECTS, REVERSE_STATUSES } from '@ferry/sdk/swaps/reverse-machine.js';
export type { ReverseEvent, ReverseEffect, ReverseStatus } from '@ferry/sdk/swaps/reverse-machine.js';
export { chainMachine, CHAIN_EVENTS, CHAIN_EFFECTS, CHAIN_STATUSES } from '@ferry/sdk/swaps/chain-machine.js';
export type { ChainEvent, ChainEffect, ChainStatus, ChainSide, ChainSwapData } from '@ferry/sdk/swaps/chain-machine.js';
export { classifySubmarineLockup, lockupReplaceable, type LockupObservation, type LockupPolicy } from '@ferry/sdk/swaps/lockup.js';
export * from '@ferry/sdk/swaps/derive.js';
