// The client SDK without its EVM half (connectEvmChain, ContractSwaps: ethers): what index.ts exports but those, for
// a browser app that fetches the EVM code only when an RBTC swap needs it — a bundler's code splitting follows
// imports, so an entry that re-exports the EVM modules puts ethers into every page load. SwapClient.contracts()
// imports them itself, on first use. No Node built-in in its import graph, as index.ts.
import './buffer-global.ts';
export { SwapClient, type SwapClientOptions, type SpendOptions, type SwapKey, type EvmSwapOptions } from './client.ts';
export type { DirectPayment } from './direct-payment.ts';
export { CONTRACT_CURRENCIES, isContractCurrency, type ContractChain, type ContractLock, type ContractTx, type LoggedLockup } from './chains/contract.ts';
export { followContractSwap, CONTRACT_SUBMARINE_SUCCESS, type ContractFollowEvent, type ContractFollowOptions, type ContractFollowResult } from './follow-contract.ts';
export { verifyContractSubmarine, verifyContractReverse, checkContractParties, DEFAULT_CONTRACT_TIMEOUT_POLICY } from './verify-contract.ts';
export { verifyContractChain, type ContractChainCheck, type CheckedContractChain } from './verify-contract-chain.ts';
export type { ContractChainSwaps, ContractChainRequest } from './contract-chain.ts';
export { followContractChainSwap, type ContractChainFollowEvent, type ContractChainFollowOptions, type ContractChainFollowResult, type SpentTx } from './follow-contract-chain.ts';
export { ServiceApi, type ServiceApiOptions } from './api.ts';
export { ServiceChain, BitcoinCoreChain, ElementsChain, type ChainSource } from './chain.ts';
export { swapChain, destinationOf, SWAP_CURRENCIES, type SwapChain, type Lockup, type Destination, type KeyPathDraft } from './chains/index.ts';
export { StatusStream, setDefaultWebSocket, type StatusStreamOptions, type ConnectionState, type WebSocketConstructor, type WebSocketLike } from './status-stream.ts';
export { TypedEmitter } from './emitter.ts';
export { followSwap, type FollowEvent, type FollowOptions, type FollowResult } from './follow.ts';
export { ClientStore } from './store.ts';
export { MemoryStorage, BrowserStorage, type ClientStorage, type WebStorageLike } from './storage.ts';
export { RescueKey, RESCUE_DERIVATION_PATH } from './rescue-key.ts';
export { restoreFromRescueKey, type RestoreResult } from './restore.ts';
export {
  parseRefundFile,
  parseRefundFileBytes,
  refundFileOf,
  refundFileJson,
  refundFilePng,
  refundFileBlob,
  RefundFileError,
  type RefundFile,
} from './refund-file.ts';
export { lockupPaying, refundSwap, refundableFromFile, refundableFromRecord, type Refundable, type RefundOptions, type RefundResult } from './refund.ts';
export { claimLockup, claimReverse, cosignSubmarineClaim, ownerOf, type Claimable, type ClaimOptions, type ClaimResult, type SwapOwner } from './claim.ts';
export { claimChain, agreedServerAmount } from './chain-claim.ts';
export { createChainSwap, type ChainSwapRequest } from './create-chain.ts';
export { createLegacySubmarine, type LegacySubmarine, type LegacySubmarineRequest } from './legacy-submarine.ts';
export { verifyChain, chainMinimalServerAmount, chainPricingOf, type ChainCheck, type ChainPricing, type CheckedChain } from './verify-chain.ts';
export {
  verifySubmarine,
  verifyReverse,
  submarineMaximalLockup,
  reverseMinimalOnchain,
  DEFAULT_TIMEOUT_POLICY,
  type TimeoutPolicy,
  type CheckedSubmarine,
  type CheckedReverse,
} from './verify.ts';
export { ServiceError, ServiceUnreachableError, VerificationError, RefundTooEarlyError } from './errors.ts';
export { newKeyPair, newPreimage, keyPairOf, type KeyPair } from './keys.ts';
export { addressOfScript, scriptOfAddress, NETWORK_NAMES, type NetworkName } from './network.ts';
export { submarineTree, reverseTree, serializeTree, deserializeTree, type SwapTree } from './taproot.ts';
export { findOutput, keyPathDraft, scriptPathClaim, scriptPathRefund, SEQUENCE, type BuiltTransaction, type SwapOutput } from '../chains/bitcoin/spends.ts';
export {
  noteStatus,
  type SwapRecord,
  type SubmarineRecord,
  type ReverseRecord,
  type ChainRecord,
  type RefundableRecord,
  type SwapOutputRecord,
  type SpendRecord,
  type SpendPath,
  type ContractRecord,
  type ContractSubmarineRecord,
  type ContractReverseRecord,
  type ContractSpendRecord,
  type ContractChainRecord,
} from './records.ts';
export { FINAL_STATUSES, type StatusUpdate, type SwapType, type SerializedSwapTree } from './types.ts';
export { qrPng, readQrPng, encodeQr, decodeQrGrid, readPng, writePng } from './qr/index.ts';
