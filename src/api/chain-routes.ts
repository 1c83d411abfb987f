// Chain endpoints shared by v1 and v2: the same questions, different field names.
import { TransactionNotFound, TransactionRejected, type ChainBackend, type ChainRegistry } from '../chains/backend.ts';
import { badRequest, HttpError, notFound } from './http/errors.ts';

export function chainOf(chains: ChainRegistry, symbol: string): ChainBackend {
  const chain = chains.get(symbol);
  if (!chain) throw badRequest(`could not find currency: ${symbol}`);
  return chain;
}

export async function feeEstimations(chains: ChainRegistry): Promise<Record<string, number>> {
  const entries = await Promise.all([...chains.values()].map(async (c) => [c.symbol, await c.feeRate()] as const));
  return Object.fromEntries(entries);
}

export async function heights(chains: ChainRegistry): Promise<Record<string, number>> {
  const entries = await Promise.all([...chains.values()].map(async (c) => [c.symbol, await c.height()] as const));
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
