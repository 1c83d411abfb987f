// The machine of each swap type.
import type { AnyMachine } from './machine.ts';
import { chainMachine } from './chain-machine.ts';
import { reverseMachine } from './reverse-machine.ts';
import { SwapType } from './status.ts';
import { submarineMachine } from './submarine-machine.ts';

export const MACHINES: Record<SwapType, AnyMachine> = {
  [SwapType.Submarine]: submarineMachine as AnyMachine,
  [SwapType.Reverse]: reverseMachine as AnyMachine,
  [SwapType.Chain]: chainMachine as AnyMachine,
};

export function machineFor(type: string): AnyMachine {
  const machine = MACHINES[type as SwapType];
  if (machine === undefined) throw new Error(`no state machine for swap type ${type}`);
  return machine;
}
