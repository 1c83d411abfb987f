// RBTC swaps on an EVM chain, the client's ContractChain: an ethers Wallet of the user's key (or of a mnemonic's
// account) over any JSON-RPC node — or a browser wallet's account through its EIP-1193 provider (window.ethereum),
// which then signs every lock, claim and refund itself and answers the reads — and the service's EtherSwap — accepted only once the node's chain id is the one
// the service names, the address runs boltz-core 4.x's EtherSwap runtime code and answers version() 6 — called with
// the ABI of boltz-core's own artifact.
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  BrowserProvider,
  Contract,
  HDNodeWallet,
  JsonRpcProvider,
  Signature,
  Wallet,
  getAddress,
  isError,
  verifyTypedData,
  type ContractTransactionResponse,
  type Eip1193Provider,
  type JsonRpcApiProvider,
  type Signer,
} from 'ethers';
import { runsArtifactCode } from '../../chains/evm/artifact-code.ts';
import { ETHER_SWAP_ABI, ETHER_SWAP_DEPLOYED } from '../../chains/evm/ether-swap-artifact.ts';
import type { ContractsInfo } from '../../chains/evm/contracts-info.ts';
import { fromApiUnits } from '../../chains/evm/units.ts';
import { VerificationError } from '../errors.ts';
import type { ContractChain, ContractLock, ContractTx, LoggedLockup } from './contract.ts';

/** The contract version whose interface this speaks: boltz-core 4.x's EtherSwap. */
export const ETHER_SWAP_VERSION = 6n;

/** A browser wallet's account: its EIP-1193 provider signs and sends; no key is ever seen here. */
export interface InjectedEvmAccount {
  provider: Eip1193Provider;
  /** Which of the wallet's accounts (default its first, asked with eth_requestAccounts). */
  address?: string;
  /**
   * Secret the preimages of reverse swaps derive from (preimageAt), as the key does for the other accounts: the
   * wallet does not give its key out. Without it a reverse swap's preimage is random and only the store knows it.
   */
  preimageKey?: Uint8Array;
}

/**
 * The user's account: a private key, an account of a BIP39 mnemonic (m/44'/60'/0'/0/index, as anvil and MetaMask
 * derive), or a browser wallet's (EIP-1193).
 */
export type EvmAccount = { privateKey: string } | { mnemonic: string; index?: number } | InjectedEvmAccount;

export const isInjectedAccount = (account: EvmAccount): account is InjectedEvmAccount => 'provider' in account;

export interface EvmChainOptions {
  /** JSON-RPC URL of a node of the chain; not needed for an injected wallet's account (its provider answers). */
  rpcUrl?: string;
  account: EvmAccount;
  /** The service's GET /v2/chain/{currency}/contracts answer. */
  contracts: ContractsInfo;
  currency?: string;
}

/** EIP-712 `Refund` of EtherSwap version 6 (version 4, boltz-core 2.x, named the last field `timeout`). */
const REFUND_TYPES = {
  Refund: [
    { name: 'preimageHash', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
    { name: 'claimAddress', type: 'address' },
    { name: 'timelock', type: 'uint256' },
  ],
};

const bytes32 = (hex: string): string => `0x${hex.replace(/^0x/, '')}`;
const plain = (hex: string): string => hex.replace(/^0x/, '').toLowerCase();

/** The signer of the account and the provider it reads through, connected; for a key, its preimage key too. */
async function accountOf(options: EvmChainOptions): Promise<{ provider: JsonRpcApiProvider; signer: Signer & { address: string }; preimageKey?: Uint8Array; where: string }> {
  const { account } = options;
  if (isInjectedAccount(account)) {
    if (typeof account.provider?.request !== 'function') throw new Error('not an EIP-1193 provider: it has no request()');
    // Polled each second for receipts: a wallet's node gives no subscriptions through EIP-1193 alone.
    const provider = new BrowserProvider(account.provider, undefined, { cacheTimeout: -1, pollingInterval: 1_000 });
    try {
      const signer = await provider.getSigner(account.address);
      return { provider, signer, preimageKey: account.preimageKey, where: "the wallet's network" };
    } catch (error) {
      provider.destroy();
      throw new Error(`the wallet gave no account: ${(error as Error).message}`);
    }
  }
  if (options.rpcUrl === undefined) throw new Error('an EVM node (rpcUrl) is needed for a key or mnemonic account');
  const provider = new JsonRpcProvider(options.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  try {
    const signer = signerOf(account, provider);
    return { provider, signer, preimageKey: hexToBytes(plain(signer.privateKey)), where: `the node at ${options.rpcUrl}` };
  } catch (error) {
    provider.destroy();
    throw error;
  }
}

function signerOf(account: { privateKey: string } | { mnemonic: string; index?: number }, provider: JsonRpcProvider): Wallet | HDNodeWallet {
  try {
    if ('privateKey' in account) return new Wallet(bytes32(account.privateKey), provider);
    return HDNodeWallet.fromPhrase(account.mnemonic.trim(), undefined, `m/44'/60'/0'/0/${account.index ?? 0}`).connect(provider);
  } catch (error) {
    throw new Error(`not a usable EVM account (${'privateKey' in account ? 'private key' : 'mnemonic'}): ${(error as Error).message}`);
  }
}

/** Connects to the node and checks the service's contract before anything is sent to it. */
export async function connectEvmChain(options: EvmChainOptions): Promise<EvmSwapChain> {
  const { provider, signer, preimageKey, where } = await accountOf(options);
  try {
    let chainId: bigint;
    try {
      chainId = (await provider.getNetwork()).chainId;
    } catch (error) {
      throw new Error(`cannot reach ${where === "the wallet's network" ? "the wallet's node" : `the EVM node at ${options.rpcUrl}`}: ${(error as Error).message}`);
    }
    const served = options.contracts?.network?.chainId;
    if (BigInt(served ?? -1) !== chainId) throw new VerificationError(`the service's contracts are on chain ${served}, but ${where} is chain ${chainId}`);
    const given = options.contracts.swapContracts?.EtherSwap;
    if (typeof given !== 'string') throw new VerificationError('the service names no EtherSwap contract');
    const address = getAddress(given);
    if (!runsArtifactCode(await provider.getCode(address), ETHER_SWAP_DEPLOYED)) {
      throw new VerificationError(`${address}, the service's EtherSwap, does not run boltz-core's EtherSwap code`);
    }
    const etherSwap = new Contract(address, ETHER_SWAP_ABI, signer);
    const version = (await etherSwap.getFunction('version')()) as bigint;
    if (version !== ETHER_SWAP_VERSION) throw new VerificationError(`EtherSwap at ${address} is version ${version}, not ${ETHER_SWAP_VERSION}`);
    return new EvmSwapChain(options.currency ?? 'RBTC', Number(chainId), provider, signer, etherSwap, preimageKey);
  } catch (error) {
    provider.destroy();
    throw error;
  }
}

export class EvmSwapChain implements ContractChain {
  readonly contractAddress: string;

  constructor(
    readonly currency: string,
    readonly chainId: number,
    private readonly provider: JsonRpcApiProvider,
    private readonly signer: Signer & { address: string },
    private readonly etherSwap: Contract,
    private readonly preimageKey?: Uint8Array,
  ) {
    this.contractAddress = etherSwap.target as string;
  }

  get address(): string {
    return this.signer.address;
  }

  toChainAmount(apiAmount: number): bigint {
    return fromApiUnits(BigInt(apiAmount));
  }

  normalizeAddress(address: string): string {
    try {
      return getAddress(address);
    } catch {
      throw new Error(`not an EVM address: ${JSON.stringify(address)}`);
    }
  }

  height(): Promise<number> {
    return this.provider.getBlockNumber();
  }

  balance(address = this.address): Promise<bigint> {
    return this.provider.getBalance(address);
  }

  lock(values: Omit<ContractLock, 'refundAddress'>): Promise<ContractTx> {
    const lock = this.etherSwap.getFunction('lock(bytes32,address,uint256)');
    return this.send('lock', () => lock(bytes32(values.preimageHash), values.claimAddress, values.timelock, { value: values.amount }));
  }

  claim(preimage: string, values: ContractLock): Promise<ContractTx> {
    const claim = this.etherSwap.getFunction('claim(bytes32,uint256,address,uint256)');
    return this.send('claim', () => claim(bytes32(preimage), values.amount, values.refundAddress, values.timelock));
  }

  refund(values: ContractLock): Promise<ContractTx> {
    const refund = this.etherSwap.getFunction('refund(bytes32,uint256,address,uint256)');
    return this.send('refund', () => refund(bytes32(values.preimageHash), values.amount, values.claimAddress, values.timelock));
  }

  isRefundSignature(values: ContractLock, signature: string): boolean {
    const domain = { name: 'EtherSwap', version: ETHER_SWAP_VERSION.toString(), chainId: this.chainId, verifyingContract: this.contractAddress };
    const message = { preimageHash: bytes32(values.preimageHash), amount: values.amount, claimAddress: values.claimAddress, timelock: values.timelock };
    try {
      return verifyTypedData(domain, REFUND_TYPES, message, signature) === getAddress(values.claimAddress);
    } catch {
      return false;
    }
  }

  refundCooperative(values: ContractLock, signature: string): Promise<ContractTx> {
    if (!this.isRefundSignature(values, signature)) {
      return Promise.reject(new VerificationError(`the refund signature is not ${values.claimAddress}'s for this lockup: the contract would refuse it`));
    }
    const { v, r, s } = Signature.from(signature);
    const refund = this.etherSwap.getFunction('refundCooperative(bytes32,uint256,address,uint256,uint8,bytes32,bytes32)');
    return this.send('refundCooperative', () => refund(bytes32(values.preimageHash), values.amount, values.claimAddress, values.timelock, v, r, s));
  }

  async isLocked(values: ContractLock): Promise<boolean> {
    const key = await this.etherSwap.getFunction('hashValues')(bytes32(values.preimageHash), values.amount, values.claimAddress, values.refundAddress, values.timelock);
    return (await this.etherSwap.getFunction('swaps')(key)) as boolean;
  }

  async lockupsOf(refundAddress = this.address): Promise<LoggedLockup[]> {
    // Version 6 indexes refundAddress (the fourth input); the filter takes every input, null for the rest.
    const logged = await this.logs(this.etherSwap.filters.Lockup(null, null, null, this.normalizeAddress(refundAddress)));
    const locked = await Promise.all(logged.map((lockup) => this.isLocked(lockup)));
    return logged.filter((_, i) => locked[i]);
  }

  lockupsFor(preimageHash: string): Promise<LoggedLockup[]> {
    return this.logs(this.etherSwap.filters.Lockup(bytes32(preimageHash)));
  }

  signMessage(message: string): Promise<string> {
    return this.signer.signMessage(message);
  }

  /** Whether preimageAt can derive (a key's account, or a wallet's given a preimage key). */
  get derivesPreimages(): boolean {
    return this.preimageKey !== undefined;
  }

  preimageAt(index: number): Uint8Array {
    if (this.preimageKey === undefined) throw new Error(`${this.address} is a wallet's account: no preimage key was given to derive preimages from`);
    // A domain of its own: the HMAC output reveals nothing of the key, and no other use of the key yields it.
    return hmac(sha256, this.preimageKey, utf8ToBytes(`ferry/contract-reverse-preimage/${index}`));
  }

  close(): void {
    this.provider.destroy();
  }

  private async logs(filter: ReturnType<Contract['filters'][string]>): Promise<LoggedLockup[]> {
    const found = await this.etherSwap.queryFilter(filter, 0);
    return found.flatMap((log) => {
      if (!('args' in log)) return [];
      const { preimageHash, amount, claimAddress, refundAddress, timelock } = log.args as unknown as { preimageHash: string; amount: bigint; claimAddress: string; refundAddress: string; timelock: bigint };
      return [{ preimageHash: plain(preimageHash), amount, claimAddress, refundAddress, timelock: Number(timelock), txHash: log.transactionHash, blockHeight: log.blockNumber }];
    });
  }

  /** Sends from the user's account and waits for the block; a call the contract refuses says why, and costs nothing. */
  private async send(what: string, call: () => Promise<ContractTransactionResponse>): Promise<ContractTx> {
    let response: ContractTransactionResponse;
    try {
      response = await call();
    } catch (error) {
      if (isError(error, 'CALL_EXCEPTION')) throw new Error(`${what}: the contract refuses: ${error.revert?.name ?? error.reason ?? error.shortMessage}`);
      if (isError(error, 'INSUFFICIENT_FUNDS')) throw new Error(`${what}: ${this.address} has not enough ${this.currency} for the value and gas`);
      throw error;
    }
    const receipt = await response.wait();
    if (receipt === null || receipt.status !== 1) throw new Error(`${what}: transaction ${response.hash} failed`);
    return { txHash: receipt.hash, blockHeight: receipt.blockNumber, fee: receipt.gasUsed * receipt.gasPrice };
  }
}
