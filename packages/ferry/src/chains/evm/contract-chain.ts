// The EVM chain as the swap legs see it (ContractChain): EtherSwap lockups, claims and refunds of the native asset
// through ethers and boltz-core's ABI, the follower's events in the seam's terms, and the operator's EIP-712
// signature for a cooperative refund. Every transaction of the operator's account goes through one queue, so two
// legs never pick the same nonce; each call resolves once its transaction is mined. While it waits, the transaction
// is listed as pending (the 'unconfirmed' alert's view) and kept as signed, so one the node drops can be sent again
// unchanged (sendAgainDropped): the queue behind it would otherwise wait for good.
import { Signature, Transaction, ZeroHash, getAddress, isAddress, isError, type ContractTransactionResponse, type TypedDataDomain } from 'ethers';
import {
  ContractCallRefused,
  type ContractChain,
  type ContractChainSubscriber,
  type ContractLockupEvent,
  type ContractLockupValues,
  type ContractSwapEvent,
  type ContractTransaction,
  type PendingContractTransaction,
} from '@ferry/sdk/chains/contract-chain.js';
import type { EvmBackend } from './backend.ts';
import { ClaimBatcher, type ClaimRequest } from './claim-batch.ts';
import { decodeSwapLog } from './decode.ts';
import type { EvmSwapEvent } from './events.ts';
import { fromApiUnits, toApiUnits } from '@ferry/sdk/chains/evm/units.js';

/** Gas the swap calls use on EtherSwap 4.x (measured on anvil, rounded up): what the pair fees quote. */
export const SWAP_GAS = { claim: 50_000, lockup: 50_000 } as const;

export interface EvmContractChainOptions {
  /** How long a due claim waits for others to share its claimBatch transaction. Default 1000 ms. */
  claimBatchMs?: number;
  /** Target seconds between blocks: RSK's 30. */
  blockSeconds?: number;
}

const bytes32 = (hex: string): string => `0x${hex}`;
const plain = (hex: string): string => hex.replace(/^0x/, '').toLowerCase();
/** The hash the contract keys the lockup by: bytes32(0) for a commitment, the swap's preimage hash otherwise. */
const lockedHash = (values: ContractLockupValues): string => (values.commitment === undefined ? bytes32(values.preimageHash) : ZeroHash);

/** The EIP-712 type of EtherSwap 4.x's cooperative refund (2.x named the last field `timeout`). */
const REFUND_TYPES = {
  Refund: [
    { name: 'preimageHash', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
    { name: 'claimAddress', type: 'address' },
    { name: 'timelock', type: 'uint256' },
  ],
};

function seamEvent(event: EvmSwapEvent): ContractSwapEvent {
  const placement = { txHash: event.txHash, logIndex: event.logIndex, blockHeight: event.block.height };
  if (event.type === 'claim') return { ...placement, type: 'claim', preimageHash: plain(event.preimageHash), preimage: plain(event.preimage) };
  if (event.type === 'refund') return { ...placement, type: 'refund', preimageHash: plain(event.preimageHash) };
  return {
    ...placement,
    type: 'lockup',
    preimageHash: plain(event.preimageHash),
    amount: event.amount.toString(),
    claimAddress: event.claimAddress,
    refundAddress: event.refundAddress,
    timelock: event.timelock,
    ...(event.tokenAddress !== undefined && { refusal: 'incorrect asset was sent' }),
  };
}

export class EvmContractChain implements ContractChain {
  readonly kind = 'contract' as const;
  readonly symbol: string;
  readonly blockSeconds: number;
  readonly contractAddress: string;
  readonly serviceAddress: string;
  private readonly batcher: ClaimBatcher;
  private sending: Promise<unknown> = Promise.resolve();
  /** Sent and waiting to be mined, by transaction hash. */
  private readonly pending = new Map<string, PendingContractTransaction>();
  /** Each pending transaction as signed, to send it again unchanged if the node drops it. */
  private readonly signed = new Map<string, string>();

  constructor(
    private readonly backend: EvmBackend,
    options: EvmContractChainOptions = {},
  ) {
    this.symbol = backend.symbol;
    this.blockSeconds = options.blockSeconds ?? 30;
    this.contractAddress = backend.contractsInfo().swapContracts.EtherSwap;
    this.serviceAddress = backend.signer.address;
    this.batcher = new ClaimBatcher(options.claimBatchMs ?? 1000, (requests) => this.sendClaims(requests));
  }

  height(): Promise<number> {
    return this.backend.height();
  }

  pendingTransactions(): PendingContractTransaction[] {
    return [...this.pending.values()];
  }

  async sendAgainDropped(): Promise<{ txHash: string; sent: boolean; error?: string }[]> {
    const outcomes: { txHash: string; sent: boolean; error?: string }[] = [];
    for (const [txHash, raw] of this.signed) {
      if ((await this.backend.provider.getTransaction(txHash)) !== null) continue;
      try {
        await this.backend.provider.broadcastTransaction(raw);
        outcomes.push({ txHash, sent: true });
      } catch (error) {
        // e.g. its fee cap still below the base fee: asked again at the next block
        outcomes.push({ txHash, sent: false, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return outcomes;
  }

  feeRate(): Promise<number> {
    return this.backend.feeRate();
  }

  async swapFees(): Promise<{ claim: number; lockup: number }> {
    const gasPrice = BigInt(await this.backend.provider.send('eth_gasPrice', []));
    const apiUnits = (gas: number) => Number(toApiUnits(gasPrice * BigInt(gas) + 10n ** 10n - 1n));
    return { claim: apiUnits(SWAP_GAS.claim), lockup: apiUnits(SWAP_GAS.lockup) };
  }

  toBaseUnits(apiAmount: number): bigint {
    return fromApiUnits(BigInt(apiAmount));
  }

  toApiUnits(amount: bigint): number | undefined {
    const api = toApiUnits(amount);
    return fromApiUnits(api) === amount ? Number(api) : undefined;
  }

  isAddress(address: string): boolean {
    return typeof address === 'string' && /^0x[0-9a-fA-F]{40}$/.test(address) && isAddress(address);
  }

  subscribe(subscriber: ContractChainSubscriber): () => void {
    const follower = this.backend.follower;
    return follower.subscribe({
      event: async (event) => {
        // Lockups to the token contract are the ERC20 swaps' (no pair serves them yet): they carry a refusal.
        await subscriber.event?.(seamEvent(event));
      },
      reorg: async (reorg) => subscriber.reorg?.({ forkHeight: reorg.forkHeight, removed: reorg.removed.map(seamEvent), complete: reorg.complete }),
      block: async (block) => subscriber.block?.({ height: block.height }),
    });
  }

  start(): Promise<void> {
    return this.backend.follower.start();
  }

  stop(): Promise<void> {
    return this.backend.follower.stop();
  }

  sync(): Promise<void> {
    return this.backend.follower.sync();
  }

  async isKnown(txHash: string): Promise<boolean> {
    return (await this.backend.provider.getTransaction(txHash)) !== null;
  }

  async isLocked(values: ContractLockupValues): Promise<boolean> {
    return (await this.backend.swapState(this.stateValues(values))).locked;
  }

  claim(values: ContractLockupValues, preimage: string): Promise<ContractTransaction> {
    return this.batcher.claim(values, preimage);
  }

  lock(values: ContractLockupValues, prepay = 0n): Promise<ContractTransaction> {
    if (getAddress(values.refundAddress) !== this.serviceAddress) throw new Error('Ferry locks only with its own refund address');
    const swap = this.backend.etherSwap;
    // lockPrepayMinerfee locks value − prepay and pays the prepay to the claim address: one transaction, so the
    // gas is sent exactly when the lock is, never alone.
    return this.send({ kind: 'lockup', preimageHashes: [values.preimageHash] }, () =>
      prepay > 0n
        ? swap.getFunction('lockPrepayMinerfee')(bytes32(values.preimageHash), values.claimAddress, values.timelock, prepay, { value: BigInt(values.amount) + prepay })
        : swap.getFunction('lock(bytes32,address,uint256)')(bytes32(values.preimageHash), values.claimAddress, values.timelock, { value: BigInt(values.amount) }),
    );
  }

  refund(values: ContractLockupValues): Promise<ContractTransaction> {
    return this.send({ kind: 'refund', preimageHashes: [values.preimageHash] }, () =>
      this.backend.etherSwap.getFunction('refund(bytes32,uint256,address,uint256)')(bytes32(values.preimageHash), BigInt(values.amount), values.claimAddress, values.timelock),
    );
  }

  async signCooperativeRefund(values: ContractLockupValues): Promise<string> {
    const domain: TypedDataDomain = {
      name: 'EtherSwap',
      version: String(this.backend.version),
      chainId: this.backend.chainId,
      verifyingContract: this.contractAddress,
    };
    const message = { preimageHash: lockedHash(values), amount: BigInt(values.amount), claimAddress: values.claimAddress, timelock: values.timelock };
    return this.backend.signer.signTypedData(domain, REFUND_TYPES, message);
  }

  async lockupsIn(txHash: string): Promise<ContractLockupEvent[] | undefined> {
    const receipt = await this.backend.provider.getTransactionReceipt(txHash);
    if (receipt === null) return undefined;
    if (receipt.status !== 1) return [];
    const lockups: ContractLockupEvent[] = [];
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== this.contractAddress.toLowerCase()) continue;
      // EtherSwap's events are of the native asset: no token decimals to read.
      const event = await decodeSwapLog(this.symbol, 'EtherSwap', log, () => Promise.reject(new Error('EtherSwap has no tokens')));
      if (event?.type === 'lockup') lockups.push(seamEvent(event) as ContractLockupEvent);
    }
    return lockups;
  }

  async checkCommitmentSignature(values: ContractLockupValues & { commitment: string }): Promise<boolean> {
    const { v, r, s } = Signature.from(values.commitment);
    const check = this.backend.etherSwap.getFunction('checkCommitmentSignature');
    return (await check(bytes32(values.preimageHash), BigInt(values.amount), values.claimAddress, values.refundAddress, values.timelock, v, r, s)) as boolean;
  }

  /**
   * One claim alone, several through claimBatch. A batch the contract refuses (one entry claimed meanwhile) is
   * tried one claim at a time, so that entry does not keep the others unclaimed; each caller gets its own result.
   */
  private async sendClaims(requests: ClaimRequest[]): Promise<(ContractTransaction | Error)[]> {
    const swap = this.backend.etherSwap;
    const one = ({ values, preimage }: ClaimRequest) =>
      this.send({ kind: 'claim', preimageHashes: [values.preimageHash] }, () => {
        if (values.commitment === undefined) return swap.getFunction('claim(bytes32,uint256,address,uint256)')(bytes32(preimage), BigInt(values.amount), values.refundAddress, values.timelock);
        // A commitment: claimed with the refund address' Commit signature of the swap's preimage hash.
        const { v, r, s } = Signature.from(values.commitment);
        const claim = swap.getFunction('claim(bytes32,uint256,address,address,uint256,uint8,bytes32,bytes32)');
        return claim(bytes32(preimage), BigInt(values.amount), values.claimAddress, values.refundAddress, values.timelock, v, r, s);
      });
    // Commitments are claimed one at a time (claimBatch's arrays have no place for their signatures).
    if (requests.length === 1 || requests.some((request) => request.values.commitment !== undefined)) {
      const results: (ContractTransaction | Error)[] = [];
      for (const request of requests) results.push(await one(request).catch((failure: unknown) => (failure instanceof Error ? failure : new Error(String(failure)))));
      return results;
    }
    try {
      const tx = await this.send({ kind: 'claim', preimageHashes: requests.map((r) => r.values.preimageHash) }, () =>
        swap.getFunction('claimBatch(bytes32[],uint256[],address[],uint256[])')(
          requests.map((r) => bytes32(r.preimage)),
          requests.map((r) => BigInt(r.values.amount)),
          requests.map((r) => r.values.refundAddress),
          requests.map((r) => r.values.timelock),
        ),
      );
      return requests.map(() => tx);
    } catch (error) {
      if (!(error instanceof ContractCallRefused)) throw error;
      const results: (ContractTransaction | Error)[] = [];
      for (const request of requests) results.push(await one(request).catch((failure: unknown) => (failure instanceof Error ? failure : new Error(String(failure)))));
      return results;
    }
  }

  /** Sends one operator transaction at a time and waits for it to be mined, listed as pending meanwhile. */
  private send(what: Pick<PendingContractTransaction, 'kind' | 'preimageHashes'>, call: () => Promise<ContractTransactionResponse>): Promise<ContractTransaction> {
    const run = this.sending.then(async () => {
      let response: ContractTransactionResponse;
      try {
        response = await call();
      } catch (error) {
        // Refused at estimation or by the node: nothing was sent.
        if (isError(error, 'CALL_EXCEPTION') || isError(error, 'INSUFFICIENT_FUNDS')) throw new ContractCallRefused(error.shortMessage);
        throw error;
      }
      const sentAtHeight = await this.height().catch(() => undefined);
      if (sentAtHeight !== undefined) this.pending.set(response.hash, { txHash: response.hash, sentAtHeight, ...what });
      this.signed.set(response.hash, Transaction.from(response).serialized);
      try {
        const receipt = await response.wait();
        if (receipt === null || receipt.status !== 1) throw new Error(`transaction ${response.hash} failed`);
        return { txHash: receipt.hash, blockHeight: receipt.blockNumber };
      } finally {
        this.pending.delete(response.hash);
        this.signed.delete(response.hash);
      }
    });
    this.sending = run.catch(() => undefined);
    return run;
  }

  private stateValues(values: ContractLockupValues) {
    return {
      preimageHash: lockedHash(values),
      amount: BigInt(values.amount),
      claimAddress: values.claimAddress,
      refundAddress: values.refundAddress,
      timelock: values.timelock,
    };
  }
}
