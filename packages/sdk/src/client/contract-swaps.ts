// Swaps on a contract chain (RBTC), from the client's side: create a submarine or reverse swap (answer checked,
// record stored before anything moves), lock from the user's account, claim the service's lockup once it holds
// exactly what was agreed for us, refund ours — with the service's EIP-712 signature at once, else alone from the
// timelock — and find our lockups again from the contract's Lockup logs by refund address when the store is lost.
import type { ServiceApi } from './api.ts';
import type { ContractChain, ContractLock, ContractTx, LoggedLockup } from './chains/contract.ts';
import { RefundTooEarlyError, VerificationError } from './errors.ts';
import { fromHex, newPreimage, sha256, toHex } from './keys.ts';
import type { NetworkName } from './network.ts';
import type { ContractRecord, ContractReverseRecord, ContractSubmarineRecord } from './records.ts';
import type { ClientStore } from './store.ts';
import type { TimeoutPolicy } from './verify.ts';
import { verifyContractReverse, verifyContractSubmarine } from './verify-contract.ts';
import { derivedPreimage, restoreContractSwaps, type ContractRestoreResult } from './contract-restore.ts';

export interface ContractSwapsOptions {
  api: ServiceApi;
  network: NetworkName;
  chain: ContractChain;
  store?: ClientStore;
  policy?: TimeoutPolicy;
  /** The service's account, when known out of band; else the one its stored swaps name, else whatever it first answers. */
  serviceAddress?: string;
}

export interface ContractRefund extends ContractTx {
  path: 'cooperative' | 'timelock';
  lockup: ContractLock;
  /** Why the cooperative refund was not taken, when it was tried. */
  cooperativeFailure?: string;
}

/** A lockup of ours still in the contract, and our record of its swap if the store has one. */
export interface RecoveredLockup {
  lockup: LoggedLockup;
  record?: ContractSubmarineRecord;
}

export class ContractSwaps {
  constructor(private readonly options: ContractSwapsOptions) {}

  get chain(): ContractChain {
    return this.options.chain;
  }

  save(record: ContractRecord): void {
    this.options.store?.saveContract(record);
  }

  /** The timelock policy of this chain's swaps. */
  get policy(): TimeoutPolicy | undefined {
    return this.options.policy;
  }

  /** The service's account as an earlier swap with this service on this chain recorded it. */
  knownServiceAddress(): string | undefined {
    const { chain, api, store } = this.options;
    if (this.options.serviceAddress !== undefined) return this.options.serviceAddress;
    return store?.listContracts().find((r) => r.serviceUrl === api.url && r.currency === chain.currency && r.contract.chainId === chain.chainId)?.contract.serviceAddress;
  }

  private base(id: string, serviceAddress: string, preimageHash: string, timeoutBlockHeight: number) {
    const { api, network, chain } = this.options;
    return {
      version: 1 as const,
      id,
      serviceUrl: api.url,
      network,
      currency: chain.currency,
      createdAt: new Date().toISOString(),
      contract: { address: chain.contractAddress, chainId: chain.chainId, serviceAddress },
      account: chain.address,
      preimageHash,
      timeoutBlockHeight,
      history: [],
    };
  }

  /** A submarine swap paying `invoice`: the answer checked and stored; `lock` sends the coins. */
  async createSubmarine(request: { invoice: string }): Promise<ContractSubmarineRecord> {
    const { api, chain } = this.options;
    const pair = (await api.submarinePairs())[chain.currency]?.BTC;
    if (pair === undefined) throw new VerificationError(`the service has no ${chain.currency}/BTC submarine pair`);
    const answer = await api.createContractSubmarine({ from: chain.currency, to: 'BTC', invoice: request.invoice, pairHash: pair.hash });
    const checked = verifyContractSubmarine({ ...this.checkInput(answer), height: await chain.height(), invoice: request.invoice, pair });
    const record: ContractSubmarineRecord = {
      ...this.base(checked.id, checked.serviceAddress, checked.invoice.paymentHash, checked.timeoutBlockHeight),
      type: 'submarine',
      invoice: request.invoice,
      invoiceAmount: checked.invoiceAmount,
      expectedAmount: checked.expectedAmount,
    };
    this.save(record);
    return record;
  }

  /** What our lock of a submarine swap holds in the contract. */
  submarineValues(record: ContractSubmarineRecord): ContractLock {
    return {
      preimageHash: record.preimageHash,
      amount: this.chain.toChainAmount(record.expectedAmount),
      claimAddress: record.contract.serviceAddress,
      refundAddress: record.account,
      timelock: record.timeoutBlockHeight,
    };
  }

  /** Locks the swap's expected amount for the service; once only (the lock transaction is recorded). */
  async lock(record: ContractSubmarineRecord): Promise<ContractTx> {
    this.checkAccount(record);
    if (record.lockup !== undefined) throw new Error(`swap ${record.id} is locked already, in ${record.lockup.txHash}`);
    const values = this.submarineValues(record);
    if (await this.chain.isLocked(values)) throw new Error(`swap ${record.id}'s values are locked already`);
    const tx = await this.chain.lock(values);
    record.lockup = { txHash: tx.txHash };
    this.save(record);
    return tx;
  }

  /** A reverse swap paying into our account: exactly one of invoiceAmount / onchainAmount; checked and stored first. */
  async createReverse(request: { invoiceAmount?: number; onchainAmount?: number; description?: string }): Promise<ContractReverseRecord> {
    if ((request.invoiceAmount === undefined) === (request.onchainAmount === undefined)) throw new Error('give exactly one of invoiceAmount and onchainAmount');
    const { api, chain } = this.options;
    const pair = (await api.reversePairs()).BTC?.[chain.currency];
    if (pair === undefined) throw new VerificationError(`the service has no BTC/${chain.currency} reverse pair`);
    // Derived from the account (at an index of the store's, written down first) so a restore by address can claim;
    // random for a wallet's account with no preimage key (then only the store knows it).
    const preimageIndex = chain.derivesPreimages ? this.options.store?.takeKeyIndex() : undefined;
    const { preimage, preimageHash } = preimageIndex === undefined ? newPreimage() : derivedPreimage(chain, preimageIndex);
    const answer = await api.createContractReverse({
      from: 'BTC',
      to: chain.currency,
      preimageHash: toHex(preimageHash),
      claimAddress: chain.address,
      ...(request.invoiceAmount !== undefined ? { invoiceAmount: request.invoiceAmount } : { onchainAmount: request.onchainAmount }),
      pairHash: pair.hash,
      ...(request.description !== undefined && { description: request.description }),
    });
    const checked = verifyContractReverse({ ...this.checkInput(answer), height: await chain.height(), preimageHash, ...request, pair });
    const record: ContractReverseRecord = {
      ...this.base(checked.id, checked.serviceAddress, toHex(preimageHash), checked.timeoutBlockHeight),
      type: 'reverse',
      preimage: toHex(preimage),
      ...(preimageIndex !== undefined && { preimageIndex }),
      invoice: checked.invoice,
      invoiceAmount: checked.invoiceAmount,
      onchainAmount: checked.onchainAmount,
    };
    this.save(record);
    return record;
  }

  /** What the service's lock of a reverse swap must hold: the onchain amount, for us, with its refund address and the agreed timelock. */
  reverseValues(record: ContractReverseRecord): ContractLock {
    return {
      preimageHash: record.preimageHash,
      amount: this.chain.toChainAmount(record.onchainAmount),
      claimAddress: record.account,
      refundAddress: record.contract.serviceAddress,
      timelock: record.timeoutBlockHeight,
    };
  }

  /** Claims the service's lockup — only if the contract holds exactly the agreed values (VerificationError otherwise). */
  async claim(record: ContractReverseRecord): Promise<ContractTx> {
    this.checkAccount(record);
    if (record.contract.serviceAddress === '') await this.learnServiceAddress(record);
    const values = this.reverseValues(record);
    if (!(await this.chain.isLocked(values))) {
      const seen = await this.chain.lockupsFor(record.preimageHash);
      const what = seen.map((l) => `${l.amount} wei for ${l.claimAddress}, refund ${l.refundAddress}, timelock ${l.timelock} (${l.txHash})`).join('; ');
      throw new VerificationError(
        `the contract does not hold ${values.amount} wei for ${values.claimAddress} with refund address ${values.refundAddress} and timelock ${values.timelock}` +
          (seen.length > 0 ? `; locked for the hash: ${what}` : ': nothing is locked for the hash (yet)'),
      );
    }
    const tx = await this.chain.claim(record.preimage, values);
    record.claim = { txHash: tx.txHash, path: 'claim', amount: values.amount.toString(), fee: tx.fee.toString() };
    this.save(record);
    return tx;
  }

  /** Refunds our lockup of a failed submarine swap: cooperatively (unless told not to), else from the timelock on. */
  async refund(record: ContractSubmarineRecord, options: { cooperative?: boolean } = {}): Promise<ContractRefund> {
    this.checkAccount(record);
    if (record.refund !== undefined) throw new Error(`swap ${record.id} was refunded already, in ${record.refund.txHash}`);
    const ours = (await this.chain.lockupsOf(record.account)).filter((lockup) => lockup.preimageHash === record.preimageHash);
    if (ours.length === 0) throw new Error(`nothing of ${record.account} is locked for swap ${record.id}: never locked, claimed, or refunded already`);
    const refund = await this.refundLockup(ours[0], { id: record.id, cooperative: options.cooperative });
    record.lockup ??= { txHash: ours[0].txHash };
    record.refund = { txHash: refund.txHash, path: refund.path, amount: refund.lockup.amount.toString(), fee: refund.fee.toString() };
    this.save(record);
    return refund;
  }

  /** Our lockups still in the contract, from its Lockup logs by refund address; a lost store loses nothing. */
  async recoverable(refundAddress = this.chain.address): Promise<RecoveredLockup[]> {
    const records = this.options.store?.listContracts() ?? [];
    return (await this.chain.lockupsOf(refundAddress)).map((lockup) => ({
      lockup,
      record: records.find((r): r is ContractSubmarineRecord => r.type === 'submarine' && r.preimageHash === lockup.preimageHash && r.account === lockup.refundAddress),
    }));
  }

  /**
   * Refunds one lockup: with the service's signature for swap `id` (of a submarine swap, or of a chain swap's) — a
   * recovered lockup's id is unknown, so its preimage hash is asked for, as the reference API allows (of a submarine
   * swap, then of a chain swap, when the type is not known either) — else alone once the timelock is reached.
   */
  async refundLockup(lockup: ContractLock, options: { id?: string; cooperative?: boolean; swapType?: 'submarine' | 'chain' } = {}): Promise<ContractRefund> {
    let cooperativeFailure: string | undefined;
    if (options.cooperative !== false) {
      const { api } = this.options;
      const name = options.id ?? lockup.preimageHash;
      const asks = options.swapType === 'chain' ? [api.chainRefundSignature] : options.swapType === 'submarine' || options.id !== undefined ? [api.submarineRefundSignature] : [api.submarineRefundSignature, api.chainRefundSignature];
      for (const ask of asks) {
        try {
          const { signature } = await ask(name);
          return { ...(await this.chain.refundCooperative(lockup, signature)), path: 'cooperative', lockup };
        } catch (error) {
          cooperativeFailure ??= (error as Error).message;
        }
      }
    }
    const height = await this.chain.height();
    // The contract compares the timelock with the number of the block the refund is mined in: the next one.
    if (height + 1 < lockup.timelock) throw new RefundTooEarlyError(lockup.timelock - 1, height, cooperativeFailure);
    return { ...(await this.chain.refund(lockup)), path: 'timelock', lockup, ...(cooperativeFailure !== undefined && { cooperativeFailure }) };
  }

  /** The preimage the service paid the invoice with, kept as the proof of payment only if it is one. */
  async notePreimage(record: ContractSubmarineRecord): Promise<void> {
    if (record.preimage !== undefined) return;
    const paid = await this.options.api.submarinePreimage(record.id).catch(() => undefined);
    if (paid && /^[0-9a-f]{64}$/i.test(paid.preimage) && toHex(sha256(fromHex(paid.preimage, 'preimage', 32))) === record.preimageHash) {
      record.preimage = paid.preimage.toLowerCase();
      this.save(record);
    }
  }

  /**
   * A restored reverse swap whose lock was not seen yet does not know who locks: the refund address of a lock of
   * exactly the agreed amount and timelock for us is the service's (who refunds is no concern of our claim).
   */
  private async learnServiceAddress(record: ContractReverseRecord): Promise<void> {
    const amount = this.chain.toChainAmount(record.onchainAmount);
    const lock = (await this.chain.lockupsFor(record.preimageHash)).find(
      (l) => l.claimAddress.toLowerCase() === record.account.toLowerCase() && l.amount === amount && l.timelock === record.timeoutBlockHeight,
    );
    if (lock === undefined) return;
    record.contract.serviceAddress = lock.refundAddress;
    this.save(record);
  }

  /** Rebuilds the store's records of this account's swaps from the service's restore by address (contract-restore.ts). */
  restore(): Promise<ContractRestoreResult> {
    return restoreContractSwaps(this, this.options, this.knownServiceAddress());
  }

  private checkInput(answer: unknown) {
    const { chain, network, policy } = this.options;
    return { answer, chain, network, policy, knownServiceAddress: this.knownServiceAddress() };
  }

  /** A record's swap is done from the account that made it: another key can neither claim it nor refund it. */
  private checkAccount(record: ContractRecord): void {
    if (record.account !== this.chain.address) throw new Error(`swap ${record.id} belongs to ${record.account}, but the key given is ${this.chain.address}'s`);
    if (record.contract.address !== this.chain.contractAddress || record.contract.chainId !== this.chain.chainId) {
      throw new Error(`swap ${record.id} is in contract ${record.contract.address} on chain ${record.contract.chainId}, not ${this.chain.contractAddress} on ${this.chain.chainId}`);
    }
  }
}
