// Which stored RBTC swaps the page's history offers to resume: kept apart from evm-wallet.ts so the history, drawn
// at every load, does not pull in the wallet code (and ethers) that only an RBTC swap needs.
import { CONTRACT_SUBMARINE_SUCCESS, FINAL_STATUSES, type ContractChainRecord, type ContractRecord } from '@ferry/sdk/client/core.js';

/** Whether a stored RBTC swap may still need the page: not ended, or failed with our coins still locked. */
export function isOpenContract(record: ContractRecord): boolean {
  const status = record.status ?? 'swap.created';
  const final = FINAL_STATUSES[record.type];
  if (record.type === 'submarine') {
    if (record.refund !== undefined || CONTRACT_SUBMARINE_SUCCESS.includes(status)) return false;
    if (final.failure.includes(status)) return record.lockup !== undefined; // followed again, it is refunded
  }
  return !final.success.includes(status) && !final.failure.includes(status);
}

/** Whether a stored chain swap with an RBTC side may still need the page: not ended, or failed with our coins locked. */
export function isOpenContractChain(record: ContractChainRecord): boolean {
  const status = record.status ?? 'swap.created';
  const { success, failure } = FINAL_STATUSES.chain;
  const ours = record.contractSide.lockedBy === 'user' ? record.contractSide : record.utxoSide;
  if (success.includes(status) || ours.refund !== undefined) return false;
  if (failure.includes(status)) return ours.lockup !== undefined; // followed again, it is refunded
  return true;
}
