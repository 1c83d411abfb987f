// Drives a stored swap to its end from its status updates, doing the client's part at each step: co-signing
// the service's claim of a paid submarine swap, claiming a reverse swap's lockup or a chain swap's server lockup,
// accepting a chain swap's quote, refunding our lockup of a failed submarine or chain swap. Every step is recorded in the store first, so following can stop and resume at any time.
import { runStatusLoop } from './status-loop.ts';
import { reverseStep } from './reverse-step.ts';
import { RefundTooEarlyError, ServiceError, VerificationError } from './errors.ts';
import type { ClaimResult } from './claim.ts';
import { fromHex, sha256, toHex } from './keys.ts';
import type { SwapClient } from './client.ts';
import { noteStatus, type ChainRecord, type RefundableRecord, type ReverseRecord, type SubmarineRecord, type SwapRecord } from './records.ts';
import type { RefundResult } from './refund.ts';
import type { StatusStream } from './status-stream.ts';
import { FINAL_STATUSES, type StatusUpdate } from './types.ts';

export type FollowEvent =
  | { type: 'status'; id: string; update: StatusUpdate }
  | { type: 'cosigned'; id: string; preimage: string }
  | { type: 'claimed'; id: string; claim: ClaimResult }
  | { type: 'refunded'; id: string; refund: RefundResult }
  | { type: 'quoted'; id: string; amount: number }
  | { type: 'warning'; id: string; message: string };

export interface FollowOptions {
  stream: StatusStream;
  /** Asked once per chain, when a claim or refund on it needs somewhere to pay to. */
  destination: (currency: string) => Promise<string>;
  onEvent?: (event: FollowEvent) => void;
  /** Try the key path with the service first (default true). */
  cooperative?: boolean;
  /** Refund a failed submarine swap as soon as it fails (default true). */
  refund?: boolean;
  /** Accept the service's new amount for a chain swap lockup it refused for its amount (default true); else refund. */
  acceptQuote?: boolean;
  /** Claim a reverse or chain swap while the service's lockup is unconfirmed (default true). */
  zeroConf?: boolean;
  /** sat/vbyte for claims and refunds; default: the chain source's estimate. */
  feeRate?: number;
  /** Wait before retrying a step that failed for a passing reason; default 5 s, at most 5 tries per status. */
  retryMs?: number;
  signal?: AbortSignal;
}

export interface FollowResult {
  record: SwapRecord;
  status: string;
  success: boolean;
  /** Why a swap ended without success, or what is left to do. */
  message?: string;
  stopped?: boolean;
}

const LOCKUP_STATUSES = ['transaction.mempool', 'transaction.confirmed', 'transaction.lockupFailed'];
/** A chain swap's statuses that carry the service's lockup. */
const SERVER_LOCKUP_STATUSES = ['transaction.server.mempool', 'transaction.server.confirmed'];

export function followSwap(client: SwapClient, record: SwapRecord, options: FollowOptions): Promise<FollowResult> {
  const { stream } = options;
  const emit = (event: FollowEvent) => options.onEvent?.(event);
  const retryMs = options.retryMs ?? 5_000;
  // A chain swap claims on one chain and refunds on the other: one destination per chain.
  const destinations = new Map<string, string>();
  if (record.destination !== undefined) destinations.set(record.type === 'chain' ? record.claimSide.currency : record.currency, record.destination);
  const destinationOf = async (currency: string) => {
    const known = destinations.get(currency) ?? (await options.destination(currency));
    destinations.set(currency, known);
    return known;
  };

  return runStatusLoop<FollowResult>({
    stream,
    id: record.id,
    signal: options.signal,
    retryMs,
    warn: (message) => emit({ type: 'warning', id: record.id, message }),
    stopped: () => ({ record, status: record.status ?? 'unknown', success: false, stopped: true, message: 'stopped before the swap ended' }),
    handler: (loop) => {
      const finish = (result: Omit<FollowResult, 'record' | 'status'>) => loop.finish({ record, status: record.status ?? 'unknown', ...result });
      const { retryLater, waitLater } = loop;

      const handleSubmarine = async (swap: SubmarineRecord, update: StatusUpdate) => {
        const { status } = update;
        if (status === 'transaction.claim.pending' && !swap.cosigned) {
          try {
            const preimage = await client.cosignClaim(swap);
            emit({ type: 'cosigned', id: swap.id, preimage: toHex(preimage) });
          } catch (error) {
            if (error instanceof VerificationError) emit({ type: 'warning', id: swap.id, message: `not co-signing: ${error.message}` });
            else retryLater(update, `co-signing the claim failed: ${(error as Error).message}`);
          }
        } else if (status === 'transaction.claimed') {
          if (swap.preimage === undefined) {
            const paid = await client.api.submarinePreimage(swap.id).catch(() => undefined);
            // Kept as the proof of payment only if it is one.
            if (paid && /^[0-9a-f]{64}$/i.test(paid.preimage) && toHex(sha256(fromHex(paid.preimage, 'preimage', 32))) === swap.preimageHash) {
              swap.preimage = paid.preimage;
              client.save(swap);
            }
          }
          finish({ success: true });
        } else if (FINAL_STATUSES.submarine.failure.includes(status)) {
          await refundOurs(swap, update, async () => (await client.api.submarineTransaction(swap.id)).id);
        }
      };

      /** Takes back our lockup of a failed swap: cooperatively at once, else alone once its timeout is reached. */
      let waiting = false;
      const refundOurs = async (swap: RefundableRecord, update: StatusUpdate, serviceLockupTxid: () => Promise<string | undefined>) => {
        if (swap.refund) return finish({ success: false, message: `refunded in ${swap.refund.txid}` });
        if (swap.lockup === undefined) {
          let txid;
          try {
            txid = await serviceLockupTxid();
          } catch (error) {
            if (!(error instanceof ServiceError)) return retryLater(update, `cannot learn the lockup: ${(error as Error).message}`);
          }
          if (txid === undefined) return finish({ success: false, message: 'no coins were locked: nothing to refund' });
          swap.lockup = { txid };
          client.save(swap);
        }
        if (options.refund === false) return finish({ success: false, message: `refund it with: ferry swap refund ${swap.id}` });
        try {
          const refund = await client.refund(swap, { destination: await destinationOf(swap.currency), cooperative: options.cooperative, feeRate: options.feeRate });
          emit({ type: 'refunded', id: swap.id, refund });
          finish({ success: false, message: `refunded in ${refund.txid}` });
        } catch (error) {
          // The service's own lockup of a chain swap is being taken back: it co-signs ours once that is in a block.
          if (error instanceof RefundTooEarlyError && swap.type === 'chain' && update.status === 'transaction.refunded') {
            if (!waiting) emit({ type: 'warning', id: swap.id, message: `waiting for the service's refund of its lockup to confirm: ${error.message}` });
            waiting = true;
            return waitLater(update);
          }
          finish({ success: false, message: `the refund failed: ${(error as Error).message}` });
        }
      };

      const handleChain = async (swap: ChainRecord, update: StatusUpdate) => {
        const { status } = update;
        if (update.transaction?.id && SERVER_LOCKUP_STATUSES.includes(status) && swap.claimSide.lockup === undefined) {
          swap.claimSide.lockup = { txid: update.transaction.id };
          client.save(swap);
        }
        // Once the service knows the preimage it claims our lockup: ours must be claimed too, whatever we missed.
        const claimable =
          status === 'transaction.server.confirmed' ||
          (status === 'transaction.server.mempool' && options.zeroConf !== false) ||
          status === 'transaction.claim.pending' ||
          status === 'transaction.claimed';
        if (claimable && swap.claim === undefined) {
          try {
            const claim = await client.claimChain(swap, {
              destination: await destinationOf(swap.claimSide.currency),
              cooperative: options.cooperative,
              feeRate: options.feeRate,
              lockupHex: SERVER_LOCKUP_STATUSES.includes(status) ? update.transaction?.hex : undefined,
            });
            emit({ type: 'claimed', id: swap.id, claim });
          } catch (error) {
            if (error instanceof VerificationError) {
              return finish({ success: false, message: `not claiming: ${error.message}; our lockup can be refunded from block ${swap.timeoutBlockHeight} with: ferry swap refund ${swap.id}` });
            }
            return retryLater(update, `claiming failed: ${(error as Error).message}`);
          }
          if (status === 'transaction.claimed') finish({ success: true });
        } else if (FINAL_STATUSES.chain.success.includes(status)) {
          finish({ success: true });
        } else if (status === 'transaction.lockupFailed' && swap.refund === undefined && swap.quote === undefined && options.acceptQuote !== false) {
          let quote;
          try {
            quote = await client.acceptQuote(swap);
          } catch (error) {
            if (error instanceof VerificationError) emit({ type: 'warning', id: swap.id, message: `not accepting the quote: ${error.message}` });
            // A quote is accepted only for a confirmed lockup: ask again, without counting it as a failure.
            else if (error instanceof ServiceError && /not confirmed/.test(error.reason ?? '')) return waitLater(update);
            else return retryLater(update, `accepting the quote failed: ${(error as Error).message}`);
          }
          if (quote !== undefined) return emit({ type: 'quoted', id: swap.id, amount: quote });
          await refundOurs(swap, update, chainLockupTxid(swap));
        } else if (FINAL_STATUSES.chain.failure.includes(status) && swap.claim === undefined && !(status === 'transaction.lockupFailed' && swap.quote !== undefined)) {
          await refundOurs(swap, update, chainLockupTxid(swap));
        }
      };

      const chainLockupTxid = (swap: ChainRecord) => async () => (await client.api.chainTransactions(swap.id)).userLock?.transaction.id;

      const handleReverse = (swap: ReverseRecord, update: StatusUpdate) =>
        reverseStep({
          update,
          claimable: update.status === 'transaction.confirmed' || (update.status === 'transaction.mempool' && options.zeroConf !== false),
          claimed: swap.claim !== undefined,
          claim: async () => {
            const claim = await client.claim(swap, {
              destination: await destinationOf(swap.currency),
              cooperative: options.cooperative,
              feeRate: options.feeRate,
              lockupHex: update.transaction?.hex,
            });
            emit({ type: 'claimed', id: swap.id, claim });
          },
          finish,
          retryLater,
        });

      const handle = async (update: StatusUpdate) => {
        if (noteStatus(record, update.status)) emit({ type: 'status', id: record.id, update });
        if (update.transaction?.id && LOCKUP_STATUSES.includes(update.status) && record.lockup === undefined) {
          record.lockup = { txid: update.transaction.id };
        }
        client.save(record);
        if (record.type === 'submarine') await handleSubmarine(record, update);
        else if (record.type === 'chain') await handleChain(record, update);
        else await handleReverse(record, update);
      };

      return handle;
    },
  });
}
