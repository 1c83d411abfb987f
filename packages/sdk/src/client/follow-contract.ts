// Drives a stored contract-chain (RBTC) swap to its end from its status updates, as follow.ts does for UTXO swaps:
// a submarine swap succeeds at transaction.claim.pending or transaction.claimed (the service claims in batches) and
// a failed one is refunded — with the service's EIP-712 signature, else after the timelock; a reverse swap's lockup is
// claimed once the contract holds exactly what was agreed, and succeeds when the service settles the invoice.
import { runStatusLoop } from './status-loop.ts';
import { reverseStep } from './reverse-step.ts';
import type { ContractTx } from './chains/contract.ts';
import type { ContractRefund, ContractSwaps } from './contract-swaps.ts';
import { RefundTooEarlyError } from './errors.ts';
import { noteStatus, type ContractRecord, type ContractReverseRecord, type ContractSubmarineRecord } from './records.ts';
import type { StatusStream } from './status-stream.ts';
import { FINAL_STATUSES, type StatusUpdate } from './types.ts';

export type ContractFollowEvent =
  | { type: 'status'; id: string; update: StatusUpdate }
  | { type: 'claimed'; id: string; tx: ContractTx }
  | { type: 'refunded'; id: string; refund: ContractRefund }
  | { type: 'warning'; id: string; message: string };

export interface ContractFollowOptions {
  stream: StatusStream;
  onEvent?: (event: ContractFollowEvent) => void;
  /** Refund a failed submarine swap as soon as it fails (default true). */
  refund?: boolean;
  /** Ask the service's signature for the refund first (default true). */
  cooperative?: boolean;
  /** Wait before retrying a step that failed for a passing reason; default 5 s, at most 5 tries per status. */
  retryMs?: number;
  signal?: AbortSignal;
}

export interface ContractFollowResult {
  record: ContractRecord;
  status: string;
  success: boolean;
  message?: string;
  stopped?: boolean;
}

/** The service claims EVM lockups in batches: a pending claim already means the invoice was paid. */
export const CONTRACT_SUBMARINE_SUCCESS = ['transaction.claim.pending', ...FINAL_STATUSES.submarine.success];

export function followContractSwap(swaps: ContractSwaps, record: ContractRecord, options: ContractFollowOptions): Promise<ContractFollowResult> {
  const { stream } = options;
  const emit = (event: ContractFollowEvent) => options.onEvent?.(event);
  const retryMs = options.retryMs ?? 5_000;

  return runStatusLoop<ContractFollowResult>({
    stream,
    id: record.id,
    signal: options.signal,
    retryMs,
    warn: (message) => emit({ type: 'warning', id: record.id, message }),
    stopped: () => ({ record, status: record.status ?? 'unknown', success: false, stopped: true, message: 'stopped before the swap ended' }),
    gaveUp: (message) => ({ record, status: record.status ?? 'unknown', success: false, message }),
    handler: (loop) => {
      const finish = (result: Omit<ContractFollowResult, 'record' | 'status'>) => loop.finish({ record, status: record.status ?? 'unknown', ...result });
      const { retryLater } = loop;

      const handleSubmarine = async (swap: ContractSubmarineRecord, update: StatusUpdate) => {
        if (CONTRACT_SUBMARINE_SUCCESS.includes(update.status)) {
          await swaps.notePreimage(swap);
          return finish({ success: true });
        }
        if (!FINAL_STATUSES.submarine.failure.includes(update.status)) return;
        if (swap.refund) return finish({ success: false, message: `refunded in ${swap.refund.txHash}` });
        if (swap.lockup === undefined) return finish({ success: false, message: 'no coins were locked: nothing to refund' });
        if (options.refund === false) return finish({ success: false, message: `refund it with: ferry swap refund ${swap.id}` });
        try {
          const refund = await swaps.refund(swap, { cooperative: options.cooperative });
          emit({ type: 'refunded', id: swap.id, refund });
          finish({ success: false, message: `refunded in ${refund.txHash}` });
        } catch (error) {
          if (error instanceof RefundTooEarlyError) {
            return finish({ success: false, message: `${error.message}; then: ferry swap refund ${swap.id}` });
          }
          retryLater(update, `the refund failed: ${(error as Error).message}`);
        }
      };

      const handleReverse = (swap: ContractReverseRecord, update: StatusUpdate) =>
        reverseStep({
          update,
          claimable: update.status === 'transaction.confirmed' || update.status === 'transaction.mempool',
          claimed: swap.claim !== undefined,
          claim: async () => {
            if (update.transaction?.id && swap.lockup === undefined) swap.lockup = { txHash: update.transaction.id };
            emit({ type: 'claimed', id: swap.id, tx: await swaps.claim(swap) });
          },
          finish,
          retryLater,
        });

      const handle = async (update: StatusUpdate) => {
        if (noteStatus(record, update.status)) emit({ type: 'status', id: record.id, update });
        swaps.save(record);
        if (record.type === 'submarine') await handleSubmarine(record, update);
        else await handleReverse(record, update);
      };

      return handle;
    },
  });
}
