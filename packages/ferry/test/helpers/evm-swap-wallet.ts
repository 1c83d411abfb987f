// A wallet doing RBTC swaps the way Boltz's web app and boltz-client do: ethers v6 and the EtherSwap ABI of
// boltz-core's Foundry artifact — 4.x (`boltz-core`) or 2.x (the `boltz-core-v2` alias) — and a key of its own,
// funded from the devnet's user account. It reaches Ferry only over HTTP and the v2 WebSocket, checks each creation
// answer against GET /v2/chain/RBTC/contracts, its pair and the chain before a wei moves, and calls the contract's
// lock, claim, refund and refundCooperative itself. Nothing in it is Ferry's code: it is what exists in the wild.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { Contract, JsonRpcProvider, Signature, Wallet, getAddress, isAddress, parseEther, sha256, type InterfaceAbi, type TransactionReceipt } from 'ethers';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { StatusSocket, SwapApi, checkReverseInvoice, percentageFee, type ReversePair, type SubmarinePair } from './swap-api.ts';

export type EtherSwapLibrary = 'boltz-core 4.x' | 'boltz-core 2.x';

const ARTIFACTS: Record<EtherSwapLibrary, string> = {
  'boltz-core 4.x': 'boltz-core/out/EtherSwap.sol/EtherSwap.json',
  'boltz-core 2.x': 'boltz-core-v2/out/EtherSwap.sol/EtherSwap.json',
};

/** API amounts are 10^-8 RBTC; the contract counts wei. */
export const WEI_PER_UNIT = 10n ** 10n;

/** The values a lockup is known by in the contract: what claim, refund and refundCooperative take. */
export interface LockValues {
  preimageHash: string; // 0x-prefixed
  amount: bigint; // wei
  claimAddress: string;
  refundAddress: string;
  timelock: number;
}

export interface EvmSubmarine {
  id: string;
  invoice: string;
  preimageHash: string;
  contract: string;
  claimAddress: string;
  expectedAmount: number;
  timeoutBlockHeight: number;
}

export interface EvmReverse {
  id: string;
  preimage: string; // 0x-prefixed
  preimageHash: string;
  invoice: string;
  contract: string;
  refundAddress: string;
  onchainAmount: number;
  timeoutBlockHeight: number;
}

export class EvmSwapWallet {
  private constructor(
    readonly library: EtherSwapLibrary,
    readonly api: SwapApi,
    readonly status: StatusSocket,
    readonly provider: JsonRpcProvider,
    readonly signer: Wallet,
    /** EtherSwap as GET /v2/chain/RBTC/contracts names it, with the library's ABI, sending from the wallet's key. */
    readonly etherSwap: Contract,
  ) {}

  /** A fresh key funded with 10 RBTC by the devnet's user account, and the service's EtherSwap. */
  static async open(options: { apiUrl: string; devnet: DevnetInfo; library: EtherSwapLibrary }): Promise<EvmSwapWallet> {
    const api = new SwapApi(options.apiUrl);
    const provider = new JsonRpcProvider(options.devnet.evm.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const signer = new Wallet(Wallet.createRandom().privateKey, provider);
    const funder = new Wallet(options.devnet.evm.accounts.user.privateKey, provider);
    await (await funder.sendTransaction({ to: signer.address, value: parseEther('10') })).wait();
    const contracts = await api.expect('GET', '/v2/chain/RBTC/contracts', undefined, 200);
    const network = await provider.getNetwork();
    if (BigInt(contracts.network.chainId) !== network.chainId) throw new Error(`the service's chain id ${contracts.network.chainId} is not the node's ${network.chainId}`);
    const abi = (createRequire(import.meta.url)(ARTIFACTS[options.library]) as { abi: InterfaceAbi }).abi;
    const etherSwap = new Contract(getAddress(contracts.swapContracts.EtherSwap), abi, signer);
    return new EvmSwapWallet(options.library, api, await StatusSocket.open(options.apiUrl), provider, signer, etherSwap);
  }

  get address(): string {
    return this.signer.address;
  }

  balance(address = this.signer.address): Promise<bigint> {
    return this.provider.getBalance(address);
  }

  height(): Promise<number> {
    return this.provider.getBlockNumber();
  }

  async submarinePair(): Promise<SubmarinePair> {
    return (await this.api.expect('GET', '/v2/swap/submarine', undefined, 200)).RBTC.BTC;
  }

  async reversePair(): Promise<ReversePair> {
    return (await this.api.expect('GET', '/v2/swap/reverse', undefined, 200)).BTC.RBTC;
  }

  /** POST /v2/swap/submarine from RBTC, no refund key: the lock names the refund address. Checked, then followed. */
  async createSubmarine(invoice: string): Promise<EvmSubmarine> {
    const pair = await this.submarinePair();
    const body = await this.api.expect('POST', '/v2/swap/submarine', { from: 'RBTC', to: 'BTC', invoice, pairHash: pair.hash }, 201);
    return this.status.follow(await this.checkSubmarine(body, invoice, pair));
  }

  /** What a wallet checks before it locks: the contract, a claim address, the amount the fees allow, the timelock ahead. */
  async checkSubmarine(body: any, invoice: string, pair: SubmarinePair): Promise<EvmSubmarine> {
    const contract = await this.etherSwap.getAddress();
    if (typeof body.address !== 'string' || !isAddress(body.address) || getAddress(body.address) !== contract) {
      throw new Error(`address ${body.address} is not the EtherSwap contract ${contract} of /v2/chain/RBTC/contracts`);
    }
    if (typeof body.claimAddress !== 'string' || !isAddress(body.claimAddress)) throw new Error(`claimAddress ${body.claimAddress} is not an address`);
    const invoiceSat = Number(decodeBolt11(invoice).amountMsat! / 1000n);
    const maximal = invoiceSat + percentageFee(invoiceSat, pair.fees.percentage) + pair.fees.minerFees;
    if (!Number.isSafeInteger(body.expectedAmount) || body.expectedAmount > maximal) throw new Error(`expectedAmount ${body.expectedAmount} is more than invoice + fees = ${maximal}`);
    const tip = await this.height();
    if (!Number.isInteger(body.timeoutBlockHeight) || body.timeoutBlockHeight <= tip) throw new Error(`timeoutBlockHeight ${body.timeoutBlockHeight} is not after the tip ${tip}`);
    return {
      id: body.id,
      invoice,
      preimageHash: `0x${decodeBolt11(invoice).paymentHash}`,
      contract,
      claimAddress: getAddress(body.claimAddress),
      expectedAmount: body.expectedAmount,
      timeoutBlockHeight: body.timeoutBlockHeight,
    };
  }

  /** `lock(preimageHash, claimAddress, timelock)` with expectedAmount × 10^10 wei (or `amount`); the values and receipt. */
  async lock(swap: EvmSubmarine, amount = BigInt(swap.expectedAmount) * WEI_PER_UNIT): Promise<{ values: LockValues; receipt: TransactionReceipt }> {
    const lock = this.etherSwap.getFunction('lock(bytes32,address,uint256)');
    const sent = await lock(swap.preimageHash, swap.claimAddress, swap.timeoutBlockHeight, { value: amount });
    const receipt = (await sent.wait())!;
    return { values: { preimageHash: swap.preimageHash, amount, claimAddress: swap.claimAddress, refundAddress: this.address, timelock: swap.timeoutBlockHeight }, receipt };
  }

  /** POST /v2/swap/reverse to RBTC for the wallet's address: the invoice, contract and timeout checked, then followed. */
  async createReverse(invoiceAmount: number): Promise<EvmReverse> {
    const pair = await this.reversePair();
    const preimage = randomBytes(32);
    const preimageHash = sha256(preimage);
    const request = { from: 'BTC', to: 'RBTC', invoiceAmount, preimageHash: preimageHash.slice(2), claimAddress: this.address, pairHash: pair.hash };
    const body = await this.api.expect('POST', '/v2/swap/reverse', request, 201);
    await checkReverseInvoice(this.api, body, Buffer.from(preimageHash.slice(2), 'hex'), invoiceAmount, pair);
    const contract = await this.etherSwap.getAddress();
    if (typeof body.lockupAddress !== 'string' || !isAddress(body.lockupAddress) || getAddress(body.lockupAddress) !== contract) {
      throw new Error(`lockupAddress ${body.lockupAddress} is not the EtherSwap contract ${contract}`);
    }
    if (typeof body.refundAddress !== 'string' || !isAddress(body.refundAddress)) throw new Error(`refundAddress ${body.refundAddress} is not an address`);
    const swap: EvmReverse = {
      id: body.id,
      preimage: `0x${preimage.toString('hex')}`,
      preimageHash,
      invoice: body.invoice,
      contract,
      refundAddress: getAddress(body.refundAddress),
      onchainAmount: body.onchainAmount,
      timeoutBlockHeight: body.timeoutBlockHeight,
    };
    return this.status.follow(swap);
  }

  /**
   * The service's lockup of a reverse swap, checked before claiming: the contract holds exactly the onchain amount
   * for the wallet's address under the answer's refund address and timelock (swaps(hashValues(...)), which either ABI
   * reads the same).
   */
  async serviceLockup(swap: EvmReverse): Promise<LockValues> {
    const values = {
      preimageHash: swap.preimageHash,
      amount: BigInt(swap.onchainAmount) * WEI_PER_UNIT,
      claimAddress: this.address,
      refundAddress: swap.refundAddress,
      timelock: swap.timeoutBlockHeight,
    };
    if (!(await this.isLocked(values))) throw new Error(`nothing is locked in ${swap.contract} for the swap's values`);
    return values;
  }

  /** The contract's Lockup logs of a preimage hash, as the wallet's ABI decodes them. */
  lockupLogs(preimageHash: string) {
    return this.etherSwap.queryFilter(this.etherSwap.filters.Lockup(preimageHash), 0);
  }

  /** `claim(preimage, amount, refundAddress, timelock)`: the wallet is the claim address. */
  async claim(swap: EvmReverse, values: LockValues): Promise<TransactionReceipt> {
    const claim = this.etherSwap.getFunction('claim(bytes32,uint256,address,uint256)');
    return (await (await claim(swap.preimage, values.amount, values.refundAddress, values.timelock)).wait())!;
  }

  /** GET /v2/swap/submarine/{id}/refund, then `refundCooperative` with the service's EIP-712 signature. */
  async cooperativeRefund(swap: EvmSubmarine, values: LockValues): Promise<TransactionReceipt> {
    const { signature } = await this.api.expect('GET', `/v2/swap/submarine/${swap.id}/refund`, undefined, 200);
    const { v, r, s } = Signature.from(signature);
    const refund = this.etherSwap.getFunction('refundCooperative(bytes32,uint256,address,uint256,uint8,bytes32,bytes32)');
    return (await (await refund(values.preimageHash, values.amount, values.claimAddress, values.timelock, v, r, s)).wait())!;
  }

  /** `refund(preimageHash, amount, claimAddress, timelock)`: only from the timelock on. */
  refund(values: LockValues): Promise<TransactionReceipt> {
    const refund = this.etherSwap.getFunction('refund(bytes32,uint256,address,uint256)');
    return refund(values.preimageHash, values.amount, values.claimAddress, values.timelock).then(async (sent) => (await sent.wait())!);
  }

  /** The same refund, only simulated: rejects with the contract's revert. */
  refundWouldRevert(values: LockValues): Promise<unknown> {
    return this.etherSwap.getFunction('refund(bytes32,uint256,address,uint256)').staticCall(values.preimageHash, values.amount, values.claimAddress, values.timelock);
  }

  /** Whether the values are still locked: swaps(hashValues(...)), asking the contract for its own key. */
  async isLocked(values: LockValues): Promise<boolean> {
    const key = await this.etherSwap.getFunction('hashValues')(values.preimageHash, values.amount, values.claimAddress, values.refundAddress, values.timelock);
    return this.etherSwap.getFunction('swaps')(key);
  }

  /**
   * A wallet that lost its swaps finds them again: Lockup events whose indexed refundAddress is its own, decoded with
   * its library's ABI, still locked.
   */
  async recoverLockups(): Promise<LockValues[]> {
    // The filter takes every input in order (null for the unindexed): refundAddress is the fourth in both versions.
    const filter = this.etherSwap.filters.Lockup(null, null, null, this.address);
    const found: LockValues[] = [];
    for (const log of await this.etherSwap.queryFilter(filter, 0)) {
      if (!('args' in log)) continue;
      const { preimageHash, amount, claimAddress, refundAddress, timelock } = log.args as unknown as Record<string, string & bigint>;
      const values = { preimageHash, amount, claimAddress, refundAddress, timelock: Number(timelock) };
      if (await this.isLocked(values)) found.push(values);
    }
    return found;
  }

  close(): void {
    this.status.close();
    this.provider.destroy();
  }
}
