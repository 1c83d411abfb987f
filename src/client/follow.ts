// Drives a stored swap to its end from its status updates, doing the client's part at each step: co-signing
// the service's claim of a paid submarine swap, claiming a reverse swap's lockup, refunding a failed
// submarine swap. Every step is recorded in the store first, so following can stop and resume at any time.
import { ServiceError, VerificationError } from './errors.ts';
import type { ClaimResult } from './claim.ts';
import { fromHex, sha256, toHex } from './keys.ts';
import type { SwapClient } from './client.ts';
import { noteStatus, type ReverseRecord, type SubmarineRecord, type SwapRecord } from './records.ts';
import type { RefundResult } from './refund.ts';
import type { StatusStream } from './status-stream.ts';
import { FINAL_STATUSES, type StatusUpdate } from './types.ts';

export type FollowEvent =
  | { type: 'status'; id: string; update: StatusUpdate }
  | { type: 'cosigned'; id: string; preimage: string }
  | { type: 'claimed'; id: string; claim: ClaimResult }
  | { type: 'refunded'; id: string; refund: RefundResult }
  | { type: 'warning'; id: string; message: string };

export interface FollowOptions {
  stream: StatusStream;
  /** Asked once, when a claim or refund needs somewhere to pay to. */
  destination: () => Promise<string>;
  onEvent?: (event: FollowEvent) => void;
  /** Try the key path with the service first (default true). */
  cooperative?: boolean;
  /** Refund a failed submarine swap as soon as it fails (default true). */
  refund?: boolean;
  /** Claim a reverse swap while its lockup is unconfirmed (default true). */
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
const MAX_TRIES = 5;

export function followSwap(client: SwapClient, record: SwapRecord, options: FollowOptions): Promise<FollowResult> {
  const { stream } = options;
  const emit = (event: FollowEvent) => options.onEvent?.(event);
  const retryMs = options.retryMs ?? 5_000;
  let destination: string | undefined = record.destination;
  const destinationOf = async () => (destination ??= await options.destination());

  return new Promise((resolve) => {
    let queue = Promise.resolve();
    let done = false;
    const tries = new Map<string, number>();
    const retryTimers = new Set<NodeJS.Timeout>();

    const finish = (result: Omit<FollowResult, 'record' | 'status'>) => {
      if (done) return;
      done = true;
      for (const timer of retryTimers) clearTimeout(timer);
      stream.off('update', listener);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ record, status: record.status ?? 'unknown', ...result });
    };
    const onAbort = () => finish({ success: false, stopped: true, message: 'stopped before the swap ended' });

    /** A step failed for a reason that may pass: try the same status again a little later. */
    const retryLater = (update: StatusUpdate, message: string) => {
      const count = (tries.get(update.status) ?? 0) + 1;
      tries.set(update.status, count);
      emit({ type: 'warning', id: record.id, message: count < MAX_TRIES ? `${message} (will retry)` : message });
      if (count >= MAX_TRIES) return;
      const timer = setTimeout(() => {
        retryTimers.delete(timer);
        enqueue(stream.current(record.id) ?? update);
      }, retryMs);
      retryTimers.add(timer);
    };

    const handleSubmarine = async (swap: SubmarineRecord, update: StatusUpdate) => {
      const { status } = update;
      if (status === 'transaction.claim.pending' && !swap.cosigned) {
        try {
          const preimage = await client.cosignClaim(swap);
          emit({ type: 'cosigned', id: swap.id, preimage: Buffer.from(preimage).toString('hex') });
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
        if (swap.refund) return finish({ success: false, message: `refunded in ${swap.refund.txid}` });
        if (swap.lockup === undefined) {
          try {
            swap.lockup = { txid: (await client.api.submarineTransaction(swap.id)).id };
            client.save(swap);
          } catch (error) {
            if (error instanceof ServiceError) return finish({ success: false, message: 'no coins were locked: nothing to refund' });
            return retryLater(update, `cannot learn the lockup: ${(error as Error).message}`);
          }
        }
        if (options.refund === false) return finish({ success: false, message: `refund it with: ferry swap refund ${swap.id}` });
        try {
          const refund = await client.refund(swap, { destination: await destinationOf(), cooperative: options.cooperative, feeRate: options.feeRate });
          emit({ type: 'refunded', id: swap.id, refund });
          finish({ success: false, message: `refunded in ${refund.txid}` });
        } catch (error) {
          finish({ success: false, message: `the refund failed: ${(error as Error).message}` });
        }
      }
    };

    const handleReverse = async (swap: ReverseRecord, update: StatusUpdate) => {
      const { status } = update;
      const claimable = status === 'transaction.confirmed' || (status === 'transaction.mempool' && options.zeroConf !== false);
      if (claimable && swap.claim === undefined) {
        try {
          const claim = await client.claim(swap, {
            destination: await destinationOf(),
            cooperative: options.cooperative,
            feeRate: options.feeRate,
            lockupHex: update.transaction?.hex,
          });
          emit({ type: 'claimed', id: swap.id, claim });
        } catch (error) {
          if (error instanceof VerificationError) return finish({ success: false, message: `not claiming: ${error.message}` });
          retryLater(update, `claiming failed: ${(error as Error).message}`);
        }
      } else if (FINAL_STATUSES.reverse.success.includes(status)) {
        finish({ success: true });
      } else if (FINAL_STATUSES.reverse.failure.includes(status)) {
        finish({ success: false, message: 'the Lightning payment, if any, goes back to the payer' });
      }
    };

    const handle = async (update: StatusUpdate) => {
      if (noteStatus(record, update.status)) emit({ type: 'status', id: record.id, update });
      if (update.transaction?.id && LOCKUP_STATUSES.includes(update.status) && record.lockup === undefined) {
        record.lockup = { txid: update.transaction.id };
      }
      client.save(record);
      if (record.type === 'submarine') await handleSubmarine(record, update);
      else await handleReverse(record, update);
    };

    const enqueue = (update: StatusUpdate) => {
      queue = queue
        .then(() => (done ? undefined : handle(update)))
        .catch((error) => emit({ type: 'warning', id: record.id, message: (error as Error).message }));
    };
    const listener = (update: StatusUpdate) => {
      if (update.id === record.id) enqueue(update);
    };

    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort);
    stream.on('update', listener);
    stream.subscribe(record.id);
    const known = stream.current(record.id);
    if (known) enqueue(known);
  });
}
