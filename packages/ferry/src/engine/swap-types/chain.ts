// The chain swap (chain → chain) = a user lockup leg on the `from` chain + a server lockup leg on the `to` chain:
// creating it (amounts, one key, two outputs whose timeouts let Ferry refund before the user can), and what the
// server lockup leg asks of a chain swap before locking and refunding. Both legs are the ones submarine and
// reverse swaps use; nothing of their flows is written again here.
import { hex } from '@scure/base';
import type { SwapRecord } from '../../db/index.ts';
import { UniqueViolation } from '../../db/index.ts';
import { SwapError, preimageHashExists, type CreateChainRequest } from '@ferry/sdk/protocol/index.js';
import { limitViolation, reverseInvoiceAmount, reverseOnchainAmount } from '../../swaps/amounts.ts';
import type { ChainSide, ChainSwapData } from '@ferry/sdk/swaps/chain-machine.js';
import type { MinerFees, PairConfig } from '../../swaps/pairs.ts';
import { lockupConfirmationsFor } from '../legs/lockup-depth.ts';
import { SwapStatus as S, SwapType } from '@ferry/sdk/swaps/status.js';
import { chainBlocksFor, lightningBlocksFor } from '../block-time.ts';
import { creationHeight } from '../coalesced-reads.ts';
import { anyChainOf, currentMinerFees, recentMinerFees, servesChain, type EngineContext } from '../context.ts';
import { chainData } from '../data.ts';
import { positiveInteger, preimageHash as parsePreimageHash } from '../input.ts';
import { legAnyChain, legChain, legContractChain, serverLockupOf, userLockupOf } from '../legs/lockup-leg.ts';
import { clientCredentials, serverSide, userSide } from './chain-sides.ts';
import type { ServerLockupHooks } from '../legs/server-lockup.ts';

export interface CreateChainResult {
  id: string;
  user: ChainSide;
  server: ChainSide;
}

/** The configured pair serving a chain swap between two chains, whichever way round it is listed. */
export function chainPairOf(ctx: EngineContext, from: string, to: string): PairConfig {
  const pair = ctx.settings.pairs.get(`${from}/${to}`) ?? ctx.settings.pairs.get(`${to}/${from}`);
  if (pair === undefined || from === to || !servesChain(ctx, from) || !servesChain(ctx, to)) {
    throw new SwapError('invalid', `could not find pair with id: ${from}/${to}`);
  }
  return pair;
}

/**
 * Ferry's miner fees of a chain swap: its lockup on `to` and its claim of the user's lockup on `from`; and the
 * client's, for its information: its lockup on `from` and its claim on `to`. A contract chain prices its calls in gas.
 */
export async function chainMinerFees(ctx: EngineContext, from: string, to: string): Promise<ChainMinerFees> {
  return chainFeesOf(await currentMinerFees(anyChainOf(ctx, from)), await currentMinerFees(anyChainOf(ctx, to)));
}

export interface ChainMinerFees {
  server: number;
  user: { claim: number; lockup: number };
}

const chainFeesOf = (fromFees: MinerFees, toFees: MinerFees): ChainMinerFees => ({
  server: toFees.reverse.lockup + fromFees.normal,
  user: { claim: toFees.reverse.claim, lockup: fromFees.reverse.lockup },
});

/**
 * The chain swap fees a pair hash was quoted with: now's, or of any quote of the last minute (either chain's fee
 * read may have moved since the client read the pairs); undefined when no quote had that hash.
 */
export async function quotedChainFees(ctx: EngineContext, from: string, to: string, hashOf: (fees: ChainMinerFees) => string, pairHash: string): Promise<ChainMinerFees | undefined> {
  const [fromChain, toChain] = [anyChainOf(ctx, from), anyChainOf(ctx, to)];
  const fromReads = [await currentMinerFees(fromChain), ...recentMinerFees(fromChain)];
  const toReads = [await currentMinerFees(toChain), ...recentMinerFees(toChain)];
  for (const fromFees of fromReads) {
    for (const toFees of toReads) {
      const fees = chainFeesOf(fromFees, toFees);
      if (hashOf(fees) === pairHash) return fees;
    }
  }
  return undefined;
}

/** A chain swap priced with `quoted` fees (the ones the client's pair hash named), else now's. */
export async function createChain(ctx: EngineContext, request: CreateChainRequest, quoted?: ChainMinerFees): Promise<CreateChainResult> {
  const pair = chainPairOf(ctx, request.from, request.to);
  const [fromChain, toChain] = [anyChainOf(ctx, request.from), anyChainOf(ctx, request.to)];
  const client = clientCredentials(request, fromChain, toChain);
  const hashBytes = parsePreimageHash(request.preimageHash);
  const paymentHash = hex.encode(hashBytes);
  if (request.userLockAmount !== undefined && request.serverLockAmount !== undefined) {
    throw new SwapError('invalid', 'userLockAmount and serverLockAmount were specified');
  }
  const fees = quoted ?? (await chainMinerFees(ctx, request.from, request.to));
  const percent = pair.fees.percentageChain;
  // A zero-amount swap: both amounts are fixed by the lockup the user makes, priced as of now.
  const zeroAmount = request.userLockAmount === undefined && request.serverLockAmount === undefined;
  let userAmount = 0;
  let serverAmount = 0;
  if (zeroAmount) {
    // Checked when the lockup is seen (lockupAmountRefusal).
  } else if (request.userLockAmount !== undefined) {
    userAmount = positiveInteger(request.userLockAmount, 'userLockAmount');
    serverAmount = reverseOnchainAmount(userAmount, pair.rate, percent, fees.server);
  } else {
    serverAmount = positiveInteger(request.serverLockAmount, 'serverLockAmount');
    userAmount = reverseInvoiceAmount(serverAmount, pair.rate, percent, fees.server);
  }
  const violation = zeroAmount ? undefined : limitViolation(userAmount, pair.limits);
  if (violation !== undefined) throw new SwapError('invalid', violation);
  if (!zeroAmount && serverAmount <= fees.user.claim) throw new SwapError('invalid', 'the amount Ferry would lock is too low');
  if (await ctx.storage.swaps.getByPreimageHash(paymentHash)) throw preimageHashExists();

  // Ferry's lockup times out first (the pair's reverse window), the user's later (its longest submarine window), so
  // Ferry can always take its own coins back before the user can take theirs: both counted in time, not blocks.
  const base = anyChainOf(ctx, pair.base);
  const serverWindow = chainBlocksFor(toChain, lightningBlocksFor(base, pair.timeouts.reverse));
  const userWindow = chainBlocksFor(fromChain, lightningBlocksFor(base, pair.timeouts.swapMaximal));
  const [fromHeight, toHeight] = [await creationHeight(fromChain), await creationHeight(toChain)];
  const keyIndex = await ctx.keyIndexes.take();
  const key = ctx.keys.keyAt(keyIndex);
  const user = userSide(fromChain, key, client, { preimageHash: hashBytes, timeoutBlockHeight: fromHeight + userWindow, amount: userAmount, startHeight: fromHeight });
  const server = serverSide(toChain, key, client, { preimageHash: hashBytes, timeoutBlockHeight: toHeight + serverWindow, amount: serverAmount, startHeight: toHeight });
  const data: ChainSwapData = {
    user,
    server,
    maximalZeroConf: pair.limits.maximalZeroConf,
    ...(zeroAmount && {
      zeroAmount: { rate: pair.rate, percentage: percent, serverMinerFee: fees.server, claimFee: fees.user.claim, minimal: pair.limits.minimal, maximal: pair.limits.maximal },
    }),
    // The percentage fee earned: the user's amount at the rate, less what Ferry locks and its miner fees.
    serviceFee: reverseOnchainAmount(userAmount, pair.rate, 0, 0) - serverAmount - fees.server,
    ...(request.referralId !== undefined && { referralId: request.referralId }),
  };

  let record: SwapRecord;
  try {
    record = await ctx.swaps.insertNew({
      type: SwapType.Chain,
      pair: `${request.from}/${request.to}`,
      status: S.Created,
      preimageHash: paymentHash,
      invoice: null,
      keyIndex,
      // The row's timeout and address are the user's: what a wallet refunding its lockup asks about.
      timeoutBlockHeight: user.timeoutBlockHeight,
      lockupAddress: user.address,
      data,
    });
  } catch (error) {
    if (error instanceof UniqueViolation && error.column === 'preimage_hash') throw preimageHashExists();
    throw error;
  }
  // A contract side needs no registration: its events are routed by preimage hash.
  if (user.contract === undefined) ctx.watching.script(user.chain, user.lockupScript, { swapId: record.id, leg: 'userLockup' });
  if (server.contract === undefined) ctx.watching.script(server.chain, server.lockupScript, { swapId: record.id, leg: 'serverLockup' });
  ctx.logger.info('chain swap created', { swap: record.id, from: request.from, to: request.to, userAmount, serverAmount });
  return { id: record.id, user, server };
}

/** What a chain swap asks before Ferry locks or refunds on its `to` chain. */
export const chainLockupHooks: ServerLockupHooks = {
  /** Lock only while the user's lockup is still there to claim, and with half of Ferry's window still ahead. */
  async lockRefusal(ctx, swap) {
    const user = userLockupOf(swap);
    if (user.lockup === undefined) return 'no user lockup is recorded';
    const confirmations = user.contract === undefined ? await legChain(ctx, user).unspentConfirmations(user.lockup.txid, user.lockup.vout) : undefined;
    const there = user.contract === undefined ? confirmations !== undefined : await legContractChain(ctx, user).isLocked(user.lockup.contract!);
    if (!there) return 'the user lockup is spent or gone';
    // Decided on a confirmed lockup that a reorg put back into the mempool: not sent now, nor failed — tried again
    // (an effect retry), by when the reorg's recheck has taken the decision back or the lockup confirmed again.
    if (confirmations === 0 && !(user.lockup as { zeroConf?: boolean }).zeroConf) throw new Error('the user lockup is unconfirmed again (a reorg): not locking until it confirms');
    // Mined again in a later block after a reorg: not as deep as its amount needs (lockup-depth.ts) until more follow.
    if (confirmations !== undefined && confirmations > 0 && confirmations < lockupConfirmationsFor(ctx, user, user.lockup.value) && !(user.lockup as { zeroConf?: boolean }).zeroConf) {
      throw new Error(`the user lockup is ${confirmations} blocks deep again (a reorg): not locking until it is as deep as its amount needs`);
    }
    const server = chainData(swap).server;
    const blocksLeft = server.timeoutBlockHeight - (await legAnyChain(ctx, serverLockupOf(swap)).height());
    if (blocksLeft < Math.ceil((server.timeoutBlockHeight - (server.startHeight as number)) / 2)) return 'too close to the swap timeout to lock';
    return undefined;
  },
  /** Once the preimage is known the user can claim Ferry's lockup, and Ferry claims the user's: no refund. */
  async beforeRefund(_ctx, swap) {
    if (chainData(swap).preimage !== undefined) throw new Error('not refunding: the preimage is known, the lockup is the user\'s');
  },
};
