// Chain endpoints shared by v1 and v2: the same questions, different field names. Heights and fees are asked of
// every chain, UTXO or EVM (an EVM chain's fee is its gas price in GWEI); transactions only of UTXO chains.
import { TransactionNotFound, TransactionRejected, type ChainBackend, type ChainRegistry } from '@ferry/sdk/chains/backend.js';
import type { EvmBackend } from '../chains/evm/backend.ts';
import { badRequest, HttpError, notFound } from './http/errors.ts';

/** What the API asks of an EVM chain. */
export type EvmChain = Pick<EvmBackend, 'symbol' | 'networkKey' | 'height' | 'feeRate' | 'contractsInfo'>;
export type EvmChains = ReadonlyMap<string, EvmChain>;

/** What the height and fee routes ask of any chain. */
type ChainReading = Pick<ChainBackend, 'symbol' | 'height' | 'feeRate'>;

/** The chains of both kinds, as the height and fee routes see them. */
export class ChainReadings {
  constructor(
    readonly chains: ChainRegistry,
    readonly evm: EvmChains = new Map(),
  ) {}

  all(): ChainReading[] {
    return [...this.chains.values(), ...this.evm.values()];
  }

  of(symbol: string): ChainReading {
    const chain = this.chains.get(symbol) ?? this.evm.get(symbol);
    if (!chain) throw badRequest(`could not find currency: ${symbol}`);
    return chain;
  }

  /** A UTXO chain, for the transaction routes; an EVM chain's transactions are not served here. */
  utxo(symbol: string): ChainBackend {
    if (this.evm.has(symbol)) throw badRequest(`${symbol} is an EVM chain: its transactions are not served here, ask its node`);
    const chain = this.chains.get(symbol);
    if (!chain) throw badRequest(`could not find currency: ${symbol}`);
    return chain;
  }
}

export async function feeEstimations(chains: ChainReadings): Promise<Record<string, number>> {
  const entries = await Promise.all(chains.all().map(async (c) => [c.symbol, await c.feeRate()] as const));
  return Object.fromEntries(entries);
}

export async function heights(chains: ChainReadings): Promise<Record<string, number>> {
  const entries = await Promise.all(chains.all().map(async (c) => [c.symbol, await c.height()] as const));
  return Object.fromEntries(entries);
}

/** notFoundStatus: v2 answers an unknown transaction with 404, v1 with 400. */
export async function fetchTransaction(chain: ChainBackend, txid: string, notFoundStatus: 400 | 404) {
  try {
    return await chain.getTransaction(txid);
  } catch (error) {
    if (error instanceof TransactionNotFound) {
      const message = `could not find transaction: ${txid}`;
      throw notFoundStatus === 404 ? notFound(message) : badRequest(message);
    }
    throw error;
  }
}

/** Finds the swap timeout an early refund waits for (the swap engine knows; without one, nothing is added). */
export type RefundTimeoutLookup = (hex: string, currency: string) => Promise<{ timeoutBlockHeight: number; timeoutEta: number } | undefined>;

// Core says 'non-final' when nLockTime is above the chain, and the script error when nLockTime is below the CLTV.
const lockTimeRefusal = /non-final|Locktime requirement not satisfied/;

export async function broadcastTransaction(chain: ChainBackend, hex: string, refundTimeout?: RefundTimeoutLookup): Promise<string> {
  try {
    return await chain.broadcast(hex);
  } catch (error) {
    if (!(error instanceof TransactionRejected)) throw error;
    const timeout = refundTimeout && lockTimeRefusal.test(error.message) ? await refundTimeout(hex, chain.symbol) : undefined;
    throw new HttpError(400, error.message, timeout ?? {});
  }
}
