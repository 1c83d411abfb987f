// The contract checkers by devnet face: each returns what in one exchange the real daemon's published contract does
// not allow (empty: conforms) and the contract operation it exercised (for the coverage summary). Faces without a
// checker are not judged.
import type { NodeExchange } from '@ferry/devnet/contract-observer.js';
import { checkLndExchange } from './lnd.ts';
import { checkClnrest } from './cln.ts';
import { checkHoldGrpc } from './hold-grpc.ts';

export interface ContractCheck {
  operation: string | undefined; // e.g. "GET /v1/getinfo" or "clnrest getinfo"; undefined: not in the contract
  violations: string[];
}

export type ContractChecker = (exchange: NodeExchange) => ContractCheck;

export const CHECKERS: Partial<Record<NodeExchange['face'], ContractChecker>> = {
  'lnd-rest': checkLndExchange,
  clnrest: checkClnrest,
  'hold-grpc': checkHoldGrpc,
};
