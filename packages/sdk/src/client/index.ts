// The client SDK's platform-neutral core: everything a wallet needs to run swaps against a service of this interface,
// in a browser or in Node — no Node built-in in its import graph (test/client/import-graph.test.ts checks it). What
// needs Node (files, the `ws` package) is node.ts's, which re-exports all of this.
export * from './core.ts';
export { connectEvmChain, isInjectedAccount, EvmSwapChain, ETHER_SWAP_VERSION, type EvmAccount, type EvmChainOptions, type InjectedEvmAccount } from './chains/evm.ts';
export { ContractSwaps, type ContractRefund, type ContractSwapsOptions, type RecoveredLockup } from './contract-swaps.ts';
export { ContractChainSwaps, locksInContract } from './contract-chain.ts';
