// Child pays for parent, for Ferry's stuck lockup the wallet cannot replace (bumpfee refused: the node does not
// accept the replacement, the lockup does not signal BIP125, or it has no change to take the fee from): the
// wallet's change output of the lockup is spent back to the wallet by a child paying enough that the two together
// reach the bump's fee rate, so a miner choosing by ancestor fee rate takes the lockup in with it. A lockup without
// change cannot be helped by Ferry alone (its other output is the swap's): logged. The child is recorded in the
// swap (lockupChild, a `server.childPaid` row, no new status) and never made twice for one lockup: while the
// recorded one is known to the node nothing is sent, and a child the record missed (a crash) has spent the change,
// so no second one can be made.
import { machineFor, statusesWith } from '../../swaps/index.ts';
import type { EngineContext } from '../context.ts';
import type { StoredTransaction } from '../data.ts';
import { legChain, lockupOutput, serverLockupOf } from './lockup-leg.ts';
import type { OwnTransaction } from './own-transactions.ts';

/** The child of a lockup, as the swap records it. */
export interface LockupChild extends StoredTransaction {
  parent: string;
}

export const LOCKUP_CHILD = 'lockupChild';

/** Pays for Ferry's lockup `own` through a child at `feeRate` (for the package); the child's txid, or undefined. */
export async function payForLockup(ctx: EngineContext, own: OwnTransaction, feeRate: number): Promise<string | undefined> {
  const swap = await ctx.swaps.require(own.swap.id);
  const leg = serverLockupOf(swap);
  if (leg.lockup?.txid !== own.tx.txid || !statusesWith(machineFor(swap.type), 'server.childPaid').includes(swap.status)) return undefined;
  const chain = legChain(ctx, own.leg);
  const recorded = swap.data[LOCKUP_CHILD] as LockupChild | undefined;
  if (recorded?.parent === own.tx.txid && (await chain.isKnown(recorded.txid))) return undefined;
  const child = await chain.payForLockup(lockupOutput(leg), feeRate);
  if (child === undefined) {
    ctx.logger.warn("Ferry's lockup is stuck and pays no change to the wallet: no child can pay for it", { swap: swap.id, txid: own.tx.txid });
    return undefined;
  }
  const data = { [LOCKUP_CHILD]: { txid: child.txid, hex: child.hex, parent: own.tx.txid } satisfies LockupChild };
  await ctx.swaps.applyLocked(swap.id, { type: 'server.childPaid', data });
  return child.txid;
}
