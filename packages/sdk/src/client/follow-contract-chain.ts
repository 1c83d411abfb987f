// Drives a stored chain swap with a contract side (contract-chain.ts) to its end from its status updates, as
// follow.ts does for chain swaps between UTXO chains. Our lock is made before following (the user sends it); then the
// service's lockup is claimed once it is out — in the contract into our account, or on the UTXO chain — and, into
// the contract chain, the service's claim of our UTXO lockup co-signed; the swap succeeds when the service has
// claimed ours. A failed swap's lock of ours is refunded: in the contract with the service's EIP-712 signature, else
// from the timelock; on the UTXO chain with MuSig2, else from the timeout. Every step is stored first.
import { locksInContract, type ContractChainSwaps } from './contract-chain.ts';
import { RefundTooEarlyError, ServiceError, VerificationError } from './errors.ts';
import { noteStatus, type ContractChainRecord } from './records.ts';
import { runStatusLoop } from './status-loop.ts';
import type { StatusStream } from './status-stream.ts';
import { FINAL_STATUSES, type StatusUpdate } from './types.ts';

/** A claim or refund we made: its transaction (txid or hash) and its fee (sat, or wei in the contract). */
export interface SpentTx {
  id: string;
  fee: bigint;
}

export type ContractChainFollowEvent =
  | { type: 'status'; id: string; update: StatusUpdate }
  | { type: 'claimed'; id: string; claim: SpentTx }
  | { type: 'cosigned'; id: string }
  | { type: 'refunded'; id: string; refund: SpentTx }
  | { type: 'warning'; id: string; message: string };

export interface ContractChainFollowOptions {
  stream: StatusStream;
  /** Where a claim or refund on a UTXO chain pays: asked once, when one is made. */
  destination(currency: string): Promise<string> | string;
  onEvent?: (event: ContractChainFollowEvent) => void;
  /** Refund our lock of a failed swap (default true). */
  refund?: boolean;
  /** Ask the service to cooperate first: MuSig2 on the UTXO chain, its EIP-712 signature in the contract (default true). */
  cooperative?: boolean;
  feeRate?: number;
  /** Wait before retrying a step that failed for a passing reason; default 5 s, at most 5 tries per status. */
  retryMs?: number;
  signal?: AbortSignal;
}

export interface ContractChainFollowResult {
  record: ContractChainRecord;
  status: string;
  success: boolean;
  message?: string;
  stopped?: boolean;
}

const USER_LOCKUP_STATUSES = ['transaction.mempool', 'transaction.confirmed', 'transaction.lockupFailed'];
const SERVER_LOCKUP_STATUSES = ['transaction.server.mempool', 'transaction.server.confirmed'];

export function followContractChainSwap(swaps: ContractChainSwaps, record: ContractChainRecord, options: ContractChainFollowOptions): Promise<ContractChainFollowResult> {
  const emit = (event: ContractChainFollowEvent) => options.onEvent?.(event);
  const inContract = locksInContract(record);
  let destination: string | undefined;
  const destinationOf = async () => (destination ??= await options.destination(record.utxoSide.currency));

  return runStatusLoop<ContractChainFollowResult>({
    stream: options.stream,
    id: record.id,
    signal: options.signal,
    retryMs: options.retryMs ?? 5_000,
    warn: (message) => emit({ type: 'warning', id: record.id, message }),
    stopped: () => ({ record, status: record.status ?? 'unknown', success: false, stopped: true, message: 'stopped before the swap ended' }),
    gaveUp: (message) => ({ record, status: record.status ?? 'unknown', success: false, message }),
    handler: (loop) => {
      const finish = (result: Omit<ContractChainFollowResult, 'record' | 'status'>) => loop.finish({ record, status: record.status ?? 'unknown', ...result });
      const { retryLater, waitLater } = loop;
      const claimed = () => (inContract ? record.utxoSide.claim : record.contractSide.claim) !== undefined;
      const refunded = () => (inContract ? record.contractSide.refund?.txHash : record.utxoSide.refund?.txid);
      let waiting = false;
      let cosignTried = false;

      const claim = async (update: StatusUpdate) => {
        if (inContract) {
          const lockupHex = SERVER_LOCKUP_STATUSES.includes(update.status) ? update.transaction?.hex : undefined;
          const result = await swaps.claimUtxo(record, { destination: await destinationOf(), cooperative: options.cooperative, feeRate: options.feeRate, lockupHex });
          emit({ type: 'claimed', id: record.id, claim: { id: result.txid, fee: BigInt(result.fee) } });
          return;
        }
        // A lock still in the mempool is not in the contract yet: its block brings the next status.
        if (update.status === 'transaction.server.mempool' && !(await swaps.chain.isLocked(swaps.contractValues(record)))) return;
        const tx = await swaps.claimContract(record);
        emit({ type: 'claimed', id: record.id, claim: { id: tx.txHash, fee: tx.fee } });
      };

      /** X → RBTC: the service's key-path claim of our lockup, signed once ours is made; it claims alone otherwise. */
      const cosign = async () => {
        if (inContract || record.cosigned || cosignTried || options.cooperative === false) return;
        cosignTried = true;
        try {
          if (await swaps.cosignServiceClaim(record)) emit({ type: 'cosigned', id: record.id });
        } catch (error) {
          emit({ type: 'warning', id: record.id, message: `not co-signing the service's claim: ${(error as Error).message}` });
        }
      };

      const refundOurs = async (update: StatusUpdate) => {
        const done = refunded();
        if (done !== undefined) return finish({ success: false, message: `refunded in ${done}` });
        if (!inContract && record.utxoSide.lockup === undefined) {
          let txid;
          try {
            txid = (await swaps.client.api.chainTransactions(record.id)).userLock?.transaction.id;
          } catch (error) {
            if (!(error instanceof ServiceError)) return retryLater(update, `cannot learn the lockup: ${(error as Error).message}`);
          }
          if (txid === undefined) return finish({ success: false, message: 'no coins were locked: nothing to refund' });
          record.utxoSide.lockup = { txid };
          swaps.save(record);
        }
        if (inContract && record.contractSide.lockup === undefined && (await swaps.chain.lockupsOf(record.contractSide.account)).every((l) => l.preimageHash !== record.preimageHash)) {
          return finish({ success: false, message: 'no coins were locked: nothing to refund' });
        }
        if (options.refund === false) return finish({ success: false, message: `our lock of swap ${record.id} is to be refunded` });
        try {
          if (inContract) {
            const refund = await swaps.refundContract(record, { cooperative: options.cooperative });
            emit({ type: 'refunded', id: record.id, refund: { id: refund.txHash, fee: refund.fee } });
            return finish({ success: false, message: `refunded in ${refund.txHash}` });
          }
          const refund = await swaps.refundUtxo(record, { destination: await destinationOf(), cooperative: options.cooperative, feeRate: options.feeRate });
          emit({ type: 'refunded', id: record.id, refund: { id: refund.txid, fee: BigInt(refund.fee) } });
          finish({ success: false, message: `refunded in ${refund.txid}` });
        } catch (error) {
          // The service's own lockup is being taken back: it cooperates once that is in a block.
          if (error instanceof RefundTooEarlyError && update.status === 'transaction.refunded') {
            if (!waiting) emit({ type: 'warning', id: record.id, message: `waiting for the service's refund of its lockup to confirm: ${error.message}` });
            waiting = true;
            return waitLater(update);
          }
          finish({ success: false, message: `the refund failed: ${(error as Error).message}` });
        }
      };

      return async (update: StatusUpdate) => {
        const { status } = update;
        if (noteStatus(record, status)) emit({ type: 'status', id: record.id, update });
        const txid = update.transaction?.id;
        if (txid !== undefined) {
          if (!inContract && USER_LOCKUP_STATUSES.includes(status)) record.utxoSide.lockup ??= { txid };
          if (inContract && SERVER_LOCKUP_STATUSES.includes(status)) record.utxoSide.lockup ??= { txid };
          if (!inContract && SERVER_LOCKUP_STATUSES.includes(status)) record.contractSide.lockup ??= { txHash: txid };
        }
        swaps.save(record);
        // Out of the contract chain, the service may claim ours once it has the preimage: its lockup must be claimed too,
        // whatever we missed. Into it, the service learns the preimage only from our claim: a later status means we made it.
        const claimable = (inContract ? [...SERVER_LOCKUP_STATUSES, 'transaction.claim.pending', 'transaction.claimed'] : SERVER_LOCKUP_STATUSES).includes(status);
        if (claimable && !claimed()) {
          try {
            await claim(update);
          } catch (error) {
            if (error instanceof VerificationError) return finish({ success: false, message: `not claiming: ${error.message}; our lock can be refunded after its timeout` });
            return retryLater(update, `claiming failed: ${(error as Error).message}`);
          }
        }
        if (claimed()) await cosign();
        if (FINAL_STATUSES.chain.success.includes(status)) return finish({ success: true });
        if (FINAL_STATUSES.chain.failure.includes(status) && !claimed()) await refundOurs(update);
      };
    },
  });
}
