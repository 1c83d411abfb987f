// The client's EVM half of a chain swap BTC ⇄ RBTC, as a wallet does it with ethers and boltz-core's EtherSwap
// artifact on the devnet's anvil: its account, the contract, the lock/claim/refund calls, the contract's state of a
// lock (swaps(hashValues(...))) and what a mined transaction cost in gas.
import { Contract, Interface, Signature, Wallet, toQuantity, type ContractTransactionResponse, type TransactionReceipt } from 'ethers';
import { artifact } from '@ferry/devnet/evm/contracts.js';
import type { ChainWorld } from './chain-support.ts';

export const WEI_PER_UNIT = 10n ** 10n;
const etherSwapAbi = new Interface(artifact('etherSwap').abi);

/** The values a lock is keyed by, as the contract takes them. */
export interface LockValues {
  preimageHash: string; // 0x-prefixed
  amount: bigint; // wei
  claimAddress: string;
  refundAddress: string;
  timelock: number;
}

export class EvmUser {
  readonly wallet: Wallet;
  readonly etherSwap: Contract;

  constructor(private readonly world: ChainWorld) {
    const { evm } = world.ferry.devnet!;
    this.wallet = new Wallet(world.ferry.devnet!.info.evm.accounts.user.privateKey, evm.provider);
    this.etherSwap = new Contract(this.contractAddress, etherSwapAbi, this.wallet);
  }

  get contractAddress(): string {
    return this.world.ferry.devnet!.info.evm.contracts.etherSwap;
  }

  /** Ferry's EVM account. */
  get ferry() {
    return this.world.ferry.evm.get('RBTC')!;
  }

  balance = (address: string = this.wallet.address): Promise<bigint> => this.ferry.balance(address);

  async locked(values: LockValues): Promise<boolean> {
    const key = await this.etherSwap.getFunction('hashValues')(values.preimageHash, values.amount, values.claimAddress, values.refundAddress, values.timelock);
    return this.etherSwap.getFunction('swaps')(key);
  }

  /** `lock(preimageHash, claimAddress, timelock)` with the amount; the receipt. */
  lock(values: Omit<LockValues, 'refundAddress'>): Promise<TransactionReceipt> {
    return this.mined(this.etherSwap.getFunction('lock(bytes32,address,uint256)')(values.preimageHash, values.claimAddress, values.timelock, { value: values.amount }));
  }

  /** `claim(preimage, amount, refundAddress, timelock)` as the claim address. */
  claim(preimage: Buffer, values: LockValues): Promise<TransactionReceipt> {
    return this.mined(this.etherSwap.getFunction('claim(bytes32,uint256,address,uint256)')(`0x${preimage.toString('hex')}`, values.amount, values.refundAddress, values.timelock));
  }

  /** `refundCooperative` with the claim address' (Ferry's) EIP-712 signature, before the timelock. */
  refundCooperative(values: LockValues, signature: string): Promise<TransactionReceipt> {
    const { v, r, s } = Signature.from(signature);
    const call = this.etherSwap.getFunction('refundCooperative(bytes32,uint256,address,uint256,uint8,bytes32,bytes32)');
    return this.mined(call(values.preimageHash, values.amount, values.claimAddress, values.timelock, v, r, s));
  }

  async mine(blocks: number): Promise<void> {
    await this.world.ferry.devnet!.evm.provider.send('anvil_mine', [toQuantity(blocks)]);
  }

  height = (): Promise<number> => this.ferry.height();

  receipt = async (txHash: string): Promise<TransactionReceipt> => (await this.world.ferry.devnet!.evm.provider.getTransactionReceipt(txHash))!;

  private async mined(sent: Promise<ContractTransactionResponse>): Promise<TransactionReceipt> {
    return (await (await sent).wait())!;
  }
}

/** What a mined transaction cost its sender. */
export const gasCost = (receipt: TransactionReceipt): bigint => receipt.gasUsed * receipt.gasPrice;
