// Typed access to a stored swap's data; the types sit next to each swap type's machine in src/swaps.
import type { SwapRecord } from '../db/index.ts';
import type { ChainSwapData } from '@ferry/sdk/swaps/chain-machine.js';
import type { ReverseData } from '@ferry/sdk/swaps/reverse-machine.js';
import type { SubmarineData } from '@ferry/sdk/swaps/submarine-machine.js';

export type { LockupRecord } from '@ferry/sdk/swaps/lockup.js';
export type { ReverseData, ReverseLockup } from '@ferry/sdk/swaps/reverse-machine.js';
export type { StoredTransaction, SubmarineData, SubmarinePricing } from '@ferry/sdk/swaps/submarine-machine.js';

export const submarineData = (record: SwapRecord): SubmarineData => record.data as SubmarineData;
export const reverseData = (record: SwapRecord): ReverseData => record.data as ReverseData;
export const chainData = (record: SwapRecord): ChainSwapData => record.data as ChainSwapData;
export type { ChainSide, ChainSwapData } from '@ferry/sdk/swaps/chain-machine.js';
