// Ferry's EVM chain (RBTC): a JSON-RPC node reached by URL through ethers, the operator's account, the swap
// contracts and their event follower. Not a ChainBackend: that interface is shaped by UTXOs (scripts, outpoints,
// raw transactions), while here a swap is contract state; swap legs compose this next to the UTXO chains.
import { Contract, type HDNodeWallet, type JsonRpcProvider } from 'ethers';
import { abiOf, type SwapContractName } from './abi.ts';
import { contractFeatures, type ContractsInfo } from '@ferry/sdk/chains/evm/contracts-info.js';
import type { EvmFollower } from './follower.ts';
import { swapState, type LockupValues, type SwapState } from './swap-state.ts';
import { toGwei } from '@ferry/sdk/chains/evm/units.js';

export interface EvmBackendOptions {
  /** The currency, RBTC. */
  symbol: string;
  /** The key the chain is listed under in /getcontracts and /v2/chain/contracts: "rsk". */
  networkKey: string;
  network: { chainId: number; name: string };
  provider: JsonRpcProvider;
  /** The operator's account, connected to the provider. */
  signer: HDNodeWallet;
  contracts: Record<SwapContractName, string>;
  /** The deployed contracts' version() (both answer the same). */
  version: number;
  tokens: Record<string, string>;
  follower: EvmFollower;
}

export class EvmBackend {
  readonly symbol: string;
  readonly networkKey: string;
  readonly provider: JsonRpcProvider;
  readonly signer: HDNodeWallet;
  readonly follower: EvmFollower;
  readonly etherSwap: Contract;
  readonly erc20Swap: Contract;

  constructor(private readonly options: EvmBackendOptions) {
    this.symbol = options.symbol;
    this.networkKey = options.networkKey;
    this.provider = options.provider;
    this.signer = options.signer;
    this.follower = options.follower;
    this.etherSwap = new Contract(options.contracts.EtherSwap, abiOf('EtherSwap'), options.signer);
    this.erc20Swap = new Contract(options.contracts.ERC20Swap, abiOf('ERC20Swap'), options.signer);
  }

  get chainId(): number {
    return this.options.network.chainId;
  }

  get version(): number {
    return this.options.version;
  }

  height(): Promise<number> {
    return this.provider.getBlockNumber();
  }

  /** The node's gas price in GWEI (eth_gasPrice: RSK has no EIP-1559 fee market), the chain's one fee estimate. */
  async feeRate(): Promise<number> {
    return toGwei(BigInt(await this.provider.send('eth_gasPrice', [])));
  }

  /** wei held by an address (default: the operator's). */
  balance(address: string = this.signer.address): Promise<bigint> {
    return this.provider.getBalance(address);
  }

  /** The swap's state in the contract it was locked in (ERC20Swap when it names a token). */
  swapState(values: LockupValues, blockTag?: number | string): Promise<SwapState> {
    return swapState(values.tokenAddress === undefined ? this.etherSwap : this.erc20Swap, values, blockTag);
  }

  contractsInfo(): ContractsInfo {
    const { network, contracts, version, tokens } = this.options;
    const swapContracts = { EtherSwap: contracts.EtherSwap, ERC20Swap: contracts.ERC20Swap };
    return {
      network: { ...network },
      swapContracts,
      supportedContracts: { [String(version)]: { ...swapContracts, features: contractFeatures(version) } },
      tokens: { ...tokens },
    };
  }

  async close(): Promise<void> {
    await this.follower.stop();
    this.provider.destroy();
  }
}
