// The operator's money checks that no chain event drives, run at start and then every `intervalMs`:
// - balances: each operator wallet against the largest amount Ferry may have to lock on its chain for one swap of
//   the pairs served (reverse and chain swaps up to the pair's maximal), and each Lightning node's outbound side
//   against the largest submarine payment (the pair's maximal): below it, 'lowBalance' (warn), cleared once refilled;
// - held payments: a reverse swap Ferry locked for whose hold invoice is no longer held (cancelled, or its HTLC
//   gone) while Ferry's lockup can still be claimed: the user could take the coins and Ferry could settle nothing.
//   'paymentLost' (error) with the lockup's amount, cleared once the swap has left those statuses (refunded, or
//   settled after all); the ferry_money_at_risk_sat gauge reads these alerts.
// A backend that does not answer is skipped for that round (doctor and the logs report unreachable nodes).
import type { ChainRegistry } from '@ferry/sdk/chains/backend.js';
import type { EvmBackend } from '../chains/evm/backend.ts';
import type { SwapRecord, Storage } from '../db/index.ts';
import { serverLockupOf } from '../engine/legs/lockup-leg.ts';
import type { LightningBackend } from '../lightning/backend.ts';
import type { Logger } from '../log/index.ts';
import type { PairConfig } from '../swaps/pairs.ts';
import { SwapStatus as S, SwapType } from '@ferry/sdk/swaps/status.js';
import type { OperatorAlerts } from './types.ts';

export interface CheckSources {
  storage: Storage;
  alerts: OperatorAlerts;
  pairs: ReadonlyMap<string, PairConfig> | readonly PairConfig[];
  chains: ChainRegistry;
  evm: ReadonlyMap<string, EvmBackend>;
  lightning: Record<string, LightningBackend>;
  logger: Logger;
}

/** Statuses of a reverse swap in which Ferry's lockup is out and the user may still claim it. */
const LOCKED_REVERSE = [S.TransactionMempool, S.TransactionConfirmed, S.TransactionRefunded];

/**
 * What each chain's wallet and each Lightning node must hold for the largest single swap of the pairs: a reverse
 * swap locks up to maximal × rate on the pair's chain, a chain swap up to maximal on either of its chains, and a
 * submarine swap pays up to maximal over the pair's Lightning node.
 */
export function balanceNeeds(pairs: Iterable<PairConfig>, servedChains: ReadonlySet<string>): { chains: Map<string, number>; lightning: Map<string, number> } {
  const chains = new Map<string, number>();
  const lightning = new Map<string, number>();
  const need = (map: Map<string, number>, symbol: string, amount: number) => map.set(symbol, Math.max(map.get(symbol) ?? 0, Math.ceil(amount)));
  for (const pair of pairs) {
    need(chains, pair.base, pair.limits.maximal * pair.rate);
    if (servedChains.has(pair.quote)) need(chains, pair.quote, pair.limits.maximal);
    need(lightning, pair.quote, pair.limits.maximal);
  }
  return { chains, lightning };
}

export class MoneyChecks {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly sources: CheckSources) {}

  /** Runs the checks now, then every `intervalMs` (0: only now). */
  async start(intervalMs: number): Promise<void> {
    await this.run();
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => void this.run(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One round of every check (a round already running is awaited instead). */
  run(): Promise<void> {
    this.running ??= (async () => {
      try {
        await this.balances();
        await this.heldPayments();
      } catch (error) {
        this.sources.logger.warn('money checks failed', { error: String(error) });
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** Wallets and channels against what the pairs' limits need. */
  async balances(): Promise<void> {
    const { chains, evm, lightning, alerts } = this.sources;
    const pairs = [...this.sources.pairs.values()];
    const needs = balanceNeeds(pairs, new Set([...chains.keys(), ...evm.keys()]));
    for (const [symbol, needed] of needs.chains) {
      const have = await this.walletBalance(symbol);
      if (have === undefined) continue;
      const key = `wallet:${symbol}`;
      if (have < needed) {
        await alerts.raise({
          kind: 'lowBalance',
          severity: 'warn',
          key,
          chain: symbol,
          amount: have,
          message: `the ${symbol} wallet holds ${have} sat, less than the ${needed} sat one swap of the pairs may lock`,
          details: { balance: have, needed, pairs: pairs.filter((pair) => pair.base === symbol || pair.quote === symbol).map((pair) => pair.id) },
        });
      } else {
        await alerts.clear('lowBalance', key);
      }
    }
    for (const [symbol, needed] of needs.lightning) {
      const node = lightning[symbol];
      const stats = await node?.getStats().catch(() => undefined);
      if (stats?.localBalanceSat === undefined) continue;
      const have = Number(stats.localBalanceSat);
      const key = `lightning:${symbol}`;
      if (have < needed) {
        await alerts.raise({
          kind: 'lowBalance',
          severity: 'warn',
          key,
          chain: symbol,
          amount: have,
          message: `the ${symbol} Lightning node can pay out ${have} sat, less than the ${needed} sat one submarine swap may pay`,
          details: { outbound: have, needed, channels: stats.channels },
        });
      } else {
        await alerts.clear('lowBalance', key);
      }
    }
  }

  /** Reverse swaps whose held payment is gone while Ferry's lockup can still be claimed. */
  async heldPayments(): Promise<void> {
    const { storage, alerts, lightning } = this.sources;
    const locked = (await storage.swaps.listByStatus(LOCKED_REVERSE)).filter((swap) => swap.type === SwapType.Reverse && atRisk(swap));
    const lockedIds = new Set(locked.map((swap) => swap.id));
    for (const swap of locked) {
      const node = lightning[swap.pair.split('/')[1]];
      if (node === undefined) continue;
      const invoice = await node.lookupInvoice(swap.preimageHash).catch(() => null);
      if (invoice === null) continue; // the node did not answer: next round
      const state = invoice?.state ?? 'unknown to the node';
      if (state === 'ACCEPTED' || state === 'SETTLED') {
        await alerts.clear('paymentLost', swap.id);
        continue;
      }
      const leg = serverLockupOf(swap);
      const amount = leg.lockup?.value ?? leg.amount ?? 0;
      await alerts.raise({
        kind: 'paymentLost',
        severity: 'error',
        key: swap.id,
        swapId: swap.id,
        pair: swap.pair,
        chain: leg.chain,
        amount,
        message: `reverse swap ${swap.id}: its held payment is ${state} while Ferry's ${leg.chain} lockup of ${amount} sat can still be claimed`,
        details: { invoiceState: state, status: swap.status, lockup: leg.lockup?.txid },
      });
    }
    for (const alert of await storage.alerts.active('paymentLost')) {
      if (!lockedIds.has(alert.key)) await alerts.clear('paymentLost', alert.key);
    }
  }

  private async walletBalance(symbol: string): Promise<number | undefined> {
    const chain = this.sources.chains.get(symbol);
    if (chain?.walletBalance) return chain.walletBalance().catch(() => undefined);
    const evm = this.sources.evm.get(symbol);
    // wei to the API's units (10^-8 of the coin), as the EVM swaps count
    if (evm) return evm.balance().then((wei) => Number(wei / 10n ** 10n), () => undefined);
    return undefined;
  }
}

/** Ferry's lockup is out (or being refunded, not yet in a block) and the preimage is unknown to Ferry. */
function atRisk(swap: SwapRecord): boolean {
  const data = swap.data as { lockupRequested?: boolean; preimage?: string; refundConfirmed?: boolean };
  return data.lockupRequested === true && typeof data.preimage !== 'string' && data.refundConfirmed !== true;
}
