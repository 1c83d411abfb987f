// How Ferry describes its EVM chain to clients (GET /v2/chain/contracts and v1 /getcontracts): chain id and name,
// the swap contracts' addresses, per contract version what they can do, and the tokens served. Shapes follow the
// reference API's `Contracts` schema (test/fixtures/boltz-v2-openapi.json).

export interface ContractsInfo {
  network: { chainId: number; name: string };
  swapContracts: { EtherSwap: string; ERC20Swap: string };
  /** By contract version: the addresses of that version and the features clients may use with Ferry. */
  supportedContracts: Record<string, { EtherSwap: string; ERC20Swap: string; features: string[] }>;
  tokens: Record<string, string>;
}

/**
 * Names of the chains ethers does not know; the reference answers ethers' network name, "unknown" for these.
 * RSK's ids: 30 mainnet, 31 testnet, 33 regtest; 31337 is anvil's (the devnet).
 */
const chainNames: Record<number, string> = { 30: 'rsk', 31: 'rskTestnet', 33: 'rskRegtest', 31337: 'anvil' };

export const chainName = (chainId: number, ethersName: string): string => chainNames[chainId] ?? ethersName;

/**
 * Version 6 (boltz-core 4.x) has claimBatch, which Ferry's claims use (BatchClaim), and takes commitment swaps
 * (CommitmentSwap: /v2/commitment/{currency}).
 */
export const contractFeatures = (version: number): string[] => (version >= 6 ? ['BatchClaim', 'CommitmentSwap'] : []);
