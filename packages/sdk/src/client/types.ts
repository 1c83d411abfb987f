// The service's v2 answers as the client reads them: the shapes of src/protocol under the client's names, and the
// statuses that end a swap, read off the state machines.
import type {
  ChainClaimDetailsBody,
  ChainPairBody,
  ChainTransactionsBody,
  LockupTransactionBody,
  PartialSignatureBody,
  ReversePairBody,
  SubmarineClaimDetailsBody,
  SubmarinePairBody,
  SwapStatusBody,
  SwapTreeJson,
  SwapTreeLeafJson,
} from '../protocol/index.ts';
import { chainMachine } from '../swaps/chain-machine.ts';
import { reverseMachine } from '../swaps/reverse-machine.ts';
import { submarineMachine } from '../swaps/submarine-machine.ts';

export type {
  CreateChainRequest,
  CreateChainResponse as ChainCreated,
  CreateReverseResponse as ReverseCreated,
  CreateSubmarineResponse as SubmarineCreated,
} from '../protocol/index.ts';
export type SerializedLeaf = SwapTreeLeafJson;
export type SerializedSwapTree = SwapTreeJson;
export type SubmarinePair = SubmarinePairBody;
export type ReversePair = ReversePairBody;
export type PartialSignature = PartialSignatureBody;
export type SubmarineClaimDetails = SubmarineClaimDetailsBody;
export type LockupTransaction = LockupTransactionBody;
export type ChainPair = ChainPairBody;
export type ChainTransactions = ChainTransactionsBody;
export type ChainClaimDetails = ChainClaimDetailsBody;

/** A status object: GET /v2/swap/{id}, and each `update` of the swap.update channel (with `id`). */
export type StatusUpdate = SwapStatusBody & { id: string };

export type SwapType = 'submarine' | 'reverse' | 'chain';

/** Statuses after which nothing more happens to a swap for the client, per type, and which of them are successes. */
export const FINAL_STATUSES: Record<SwapType, { success: readonly string[]; failure: readonly string[] }> = {
  submarine: { success: submarineMachine.succeeded, failure: submarineMachine.failed },
  reverse: { success: reverseMachine.succeeded, failure: reverseMachine.failed },
  chain: { success: chainMachine.succeeded, failure: chainMachine.failed },
};
