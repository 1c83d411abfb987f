// Chain swaps with a contract side (BTC ⇄ RBTC, L-BTC ⇄ RBTC), from the client's side. Into the contract chain: we
// lock on the UTXO chain as in any chain swap, claim the service's EtherSwap lock with the preimage from our account
// once it holds exactly what was agreed for us, and co-sign the service's key-path claim of our lockup; a failed swap
// gets our UTXO lockup back (MuSig2 with the service, else the refund leaf after its timeout). Out of the contract
// chain: we lock in EtherSwap for the service's account (the refund after the timelock is ours) and claim the
// service's UTXO lockup (cooperative MuSig2, else the claim leaf); a failed swap gets our lock back with the service's
// EIP-712 signature, else after the timelock. The answer is checked and the record stored before anything moves.
import type { ContractTx, ContractLock } from './chains/contract.ts';
import { signServiceClaimOfOurLockup } from './chain-claim.ts';
import { claimLockup, ownerOf, type ClaimResult } from './claim.ts';
import type { SpendOptions, SwapClient } from './client.ts';
import type { ContractRefund, ContractSwaps } from './contract-swaps.ts';
import { VerificationError } from './errors.ts';
import { toHex } from './keys.ts';
import type { ContractChainRecord } from './records.ts';
import { refundFileOf } from './refund-file.ts';
import { refundSwap, type RefundResult } from './refund.ts';
import { serializeTree } from './taproot.ts';
import { chainPricingOf } from './verify-chain.ts';
import { verifyContractChain } from './verify-contract-chain.ts';

export interface ContractChainRequest {
  from: string;
  to: string;
  /** Exactly one: what we lock, or what the service locks (sat; the contract side in units of 10^10 wei). */
  userLockAmount?: number;
  serverLockAmount?: number;
}

/** Whether we lock on the contract chain (RBTC → X) rather than claim there (X → RBTC). */
export const locksInContract = (record: ContractChainRecord): boolean => record.contractSide.lockedBy === 'user';

export class ContractChainSwaps {
  constructor(
    readonly client: SwapClient,
    readonly contracts: ContractSwaps,
  ) {}

  get chain() {
    return this.contracts.chain;
  }

  save(record: ContractChainRecord): void {
    this.client.store?.saveContractChain(record);
  }

  /** A chain swap between the contract chain and a UTXO chain: the answer checked and stored before it is returned. */
  async create(request: ContractChainRequest): Promise<ContractChainRecord> {
    const { client, chain } = this;
    const { from, to } = request;
    if ((request.userLockAmount === undefined) === (request.serverLockAmount === undefined)) throw new Error('give exactly one of userLockAmount and serverLockAmount');
    const toContract = to === chain.currency;
    if (toContract === (from === chain.currency)) throw new Error(`a chain swap on ${chain.currency} goes between it and a UTXO chain, not ${from} → ${to}`);
    const utxoCurrency = toContract ? from : to;
    const { key, preimage, preimageHash, keyIndex } = client.newSwapKey();
    const pair = (await client.api.chainPairs())[from]?.[to];
    if (pair === undefined) throw new VerificationError(`the service has no chain swap from ${from} to ${to}`);
    const answer = await client.api.createChain({
      from,
      to,
      preimageHash: toHex(preimageHash),
      ...(toContract ? { claimAddress: chain.address, refundPublicKey: toHex(key.publicKey) } : { claimPublicKey: toHex(key.publicKey) }),
      ...(request.userLockAmount !== undefined && { userLockAmount: request.userLockAmount }),
      ...(request.serverLockAmount !== undefined && { serverLockAmount: request.serverLockAmount }),
      pairHash: pair.hash,
    });
    const [contractHeight, utxoHeight] = await Promise.all([chain.height(), client.chainOf(utxoCurrency).height()]);
    const checked = verifyContractChain({
      answer,
      from,
      to,
      chain,
      key,
      preimageHash,
      userLockAmount: request.userLockAmount,
      serverLockAmount: request.serverLockAmount,
      pair,
      heights: { contract: contractHeight, utxo: utxoHeight },
      network: client.network,
      policy: client.timeoutPolicy,
      contractPolicy: this.contracts.policy,
      knownServiceAddress: this.contracts.knownServiceAddress(),
    });
    const { utxo } = checked;
    const record: ContractChainRecord = {
      version: 1,
      id: checked.id,
      type: 'chain',
      serviceUrl: client.api.url,
      network: client.network,
      from,
      to,
      createdAt: new Date().toISOString(),
      preimage: toHex(preimage),
      preimageHash: toHex(preimageHash),
      ...(keyIndex !== undefined && { keyIndex }),
      userLockAmount: checked.userAmount,
      serverLockAmount: checked.serverAmount,
      pair: chainPricingOf(pair),
      contractSide: {
        currency: chain.currency,
        lockedBy: toContract ? 'service' : 'user',
        contract: { address: chain.contractAddress, chainId: chain.chainId, serviceAddress: checked.contract.serviceAddress },
        account: chain.address,
        timeoutBlockHeight: checked.contract.timeoutBlockHeight,
      },
      utxoSide: {
        currency: utxo.currency,
        lockedBy: toContract ? 'user' : 'service',
        privateKey: toHex(key.privateKey),
        publicKey: toHex(key.publicKey),
        servicePublicKey: toHex(utxo.servicePublicKey),
        swapTree: serializeTree(utxo.tree),
        timeoutBlockHeight: utxo.timeoutBlockHeight,
        lockupAddress: utxo.address,
        ...(utxo.blindingKey !== undefined && { blindingKey: toHex(utxo.blindingKey) }),
        ...(utxo.bip21 !== undefined && { bip21: utxo.bip21 }),
      },
      history: [],
    };
    if (toContract && client.store) {
      const side = record.utxoSide;
      record.refundFiles = client.store.writeRefundFiles(refundFileOf({ id: record.id, type: 'chain', ...side }));
    }
    this.save(record);
    return record;
  }

  /** The values of the contract side's lock: ours for the service's account, or the service's for ours. */
  contractValues(record: ContractChainRecord): ContractLock {
    const side = record.contractSide;
    const ours = side.lockedBy === 'user';
    return {
      preimageHash: record.preimageHash,
      amount: this.chain.toChainAmount(ours ? record.userLockAmount : record.serverLockAmount),
      claimAddress: ours ? side.contract.serviceAddress : side.account,
      refundAddress: ours ? side.account : side.contract.serviceAddress,
      timelock: side.timeoutBlockHeight,
    };
  }

  /** RBTC → X: locks what we agreed to for the service's account; once only. */
  async lock(record: ContractChainRecord): Promise<ContractTx> {
    this.checkAccount(record);
    if (!locksInContract(record)) throw new Error(`swap ${record.id}: we lock on ${record.from}, not in the contract`);
    if (record.contractSide.lockup !== undefined) throw new Error(`swap ${record.id} is locked already, in ${record.contractSide.lockup.txHash}`);
    const values = this.contractValues(record);
    if (await this.chain.isLocked(values)) throw new Error(`swap ${record.id}'s values are locked already`);
    const tx = await this.chain.lock(values);
    record.contractSide.lockup = { txHash: tx.txHash };
    this.save(record);
    return tx;
  }

  /** X → RBTC: claims the service's lock into our account, only if the contract holds exactly the agreed values. */
  async claimContract(record: ContractChainRecord): Promise<ContractTx> {
    this.checkAccount(record);
    if (locksInContract(record)) throw new Error(`swap ${record.id}: the service's lockup is on ${record.to}, not in the contract`);
    const values = this.contractValues(record);
    if (!(await this.chain.isLocked(values))) {
      throw new VerificationError(
        `the contract does not hold ${values.amount} wei for ${values.claimAddress} with refund address ${values.refundAddress} and timelock ${values.timelock}`,
      );
    }
    const tx = await this.chain.claim(record.preimage, values);
    record.contractSide.claim = { txHash: tx.txHash, path: 'claim', amount: values.amount.toString(), fee: tx.fee.toString() };
    this.save(record);
    return tx;
  }

  /**
   * X → RBTC, after our claim: our partial signature of the service's key-path claim of our UTXO lockup, with the
   * preimage (already public in our claim). False when the service offers no such claim now: it claims alone then.
   */
  async cosignServiceClaim(record: ContractChainRecord): Promise<boolean> {
    const { api } = this.client;
    const signature = await signServiceClaimOfOurLockup({ id: record.id, servicePublicKey: record.utxoSide.servicePublicKey }, api, ownerOf(record.utxoSide));
    if (signature === undefined) return false;
    await api.chainClaim(record.id, { preimage: record.preimage, signature });
    record.cosigned = true;
    this.save(record);
    return true;
  }

  /** RBTC → X: claims the service's UTXO lockup, which must hold at least what was agreed (key path, else script path). */
  async claimUtxo(record: ContractChainRecord, options: SpendOptions & { lockupHex?: string }): Promise<ClaimResult> {
    if (!locksInContract(record)) throw new Error(`swap ${record.id}: the service's lockup is in the contract`);
    const { client } = this;
    const { api } = client;
    const side = record.utxoSide;
    const claimed = await claimLockup(
      {
        id: record.id,
        owner: ownerOf(side),
        preimage: record.preimage,
        lockupAddress: side.lockupAddress,
        agreedAmount: record.serverLockAmount,
        lockupTxid: side.lockup?.txid,
        async serviceLockupHex() {
          const server = (await api.chainTransactions(record.id)).serverLock;
          if (server === undefined) throw new Error(`the service has not locked for swap ${record.id} yet`);
          return server.transaction.hex;
        },
        // The service claims our lock in the contract with the preimage: no signature of ours is needed for it.
        cosign: (toSign) => api.chainClaim(record.id, { preimage: record.preimage, toSign }),
        announcePreimage: () => api.chainClaim(record.id, { preimage: record.preimage }),
      },
      { ...options, network: client.network, chain: client.chainOf(side.currency), api },
    );
    side.claim = { txid: claimed.txid, path: claimed.path, address: options.destination, amount: Number(claimed.amount), fee: Number(claimed.fee) };
    this.save(record);
    return claimed;
  }

  /** RBTC → X failed: our lock back, with the service's EIP-712 signature (unless told not to), else from the timelock on. */
  async refundContract(record: ContractChainRecord, options: { cooperative?: boolean } = {}): Promise<ContractRefund> {
    this.checkAccount(record);
    if (!locksInContract(record)) throw new Error(`swap ${record.id}: our lockup is on ${record.from}, not in the contract`);
    if (record.contractSide.refund !== undefined) throw new Error(`swap ${record.id} was refunded already, in ${record.contractSide.refund.txHash}`);
    // Whatever we locked for the hash, with our account to refund it: a lock of another amount is ours to take back too.
    const ours = (await this.chain.lockupsOf(record.contractSide.account)).filter((lockup) => lockup.preimageHash === record.preimageHash);
    if (ours.length === 0) throw new Error(`nothing of ${record.contractSide.account} is locked for swap ${record.id}: never locked, claimed, or refunded already`);
    const refund = await this.contracts.refundLockup(ours[0], { id: record.id, cooperative: options.cooperative, swapType: 'chain' });
    record.contractSide.lockup ??= { txHash: ours[0].txHash };
    record.contractSide.refund = { txHash: refund.txHash, path: refund.path, amount: refund.lockup.amount.toString(), fee: refund.fee.toString() };
    this.save(record);
    return refund;
  }

  /** X → RBTC failed: our UTXO lockup back (MuSig2 with the service, else the refund leaf after its timeout). */
  async refundUtxo(record: ContractChainRecord, options: SpendOptions & { lockupTxid?: string }): Promise<RefundResult> {
    if (locksInContract(record)) throw new Error(`swap ${record.id}: our lockup is in the contract`);
    const { client } = this;
    const side = record.utxoSide;
    const owner = ownerOf(side);
    const refunded = await refundSwap(
      { id: record.id, type: 'chain', currency: side.currency, privateKey: owner.privateKey, publicKey: owner.publicKey, timeoutBlockHeight: side.timeoutBlockHeight, taproot: owner, lockupTxid: side.lockup?.txid },
      { ...options, network: client.network, chain: client.chainOf(side.currency), api: client.api },
    );
    side.refund = { txid: refunded.txid, path: refunded.path, address: options.destination, amount: Number(refunded.amount), fee: Number(refunded.fee) };
    this.save(record);
    return refunded;
  }

  /** A record's contract side is done from the account and contract that made it. */
  private checkAccount(record: ContractChainRecord): void {
    const { chain } = this;
    const side = record.contractSide;
    if (side.account !== chain.address) throw new Error(`swap ${record.id} belongs to ${side.account}, but the account given is ${chain.address}`);
    if (side.contract.address !== chain.contractAddress || side.contract.chainId !== chain.chainId) {
      throw new Error(`swap ${record.id} is in contract ${side.contract.address} on chain ${side.contract.chainId}, not ${chain.contractAddress} on ${chain.chainId}`);
    }
  }
}
