// Typed access to a stored swap's data; the types sit next to each swap type's machine in src/swaps.
import type { SwapRecord } from '../db/index.ts';
import type { ChainSwapData } from '../swaps/chain-machine.ts';
import type { ReverseData } from '../swaps/reverse-machine.ts';
import type { SubmarineData } from '../swaps/submarine-machine.ts';

export type { LockupRecord } from '../swaps/lockup.ts';
export type { ReverseData, ReverseLockup } from '../swaps/reverse-machine.ts';
export type { StoredTransaction, SubmarineData, SubmarinePricing } from '../swaps/submarine-machine.ts';

export const submarineData = (record: SwapRecord): SubmarineData => record.data as SubmarineData;
export const reverseData = (record: SwapRecord): ReverseData => record.data as ReverseData;
export const chainData = (record: SwapRecord): ChainSwapData => record.data as ChainSwapData;
export type { ChainSide, ChainSwapData } from '../swaps/chain-machine.ts';
