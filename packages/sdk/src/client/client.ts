// The SDK's front door: create swaps against any service of this interface, check every answer before a
// coin moves, keep what is needed to finish or undo each swap in the client store, and claim or refund — on
// Bitcoin (BTC) or Liquid (L-BTC), whichever chain each swap's currency names; chain swaps between the two. Swaps on
// a contract chain (RBTC) go through `contracts(currency)`, on the user's EVM account, and chain swaps between it and
// BTC or L-BTC through `contractChains(currency)`.
import { ServiceApi } from './api.ts';
import { decodeBolt11 } from '../lightning/bolt11/decode.ts';
import { ServiceChain, type ChainSource } from './chain.ts';
import { agreedServerAmount, claimChain } from './chain-claim.ts';
import { claimReverse, cosignSubmarineClaim, ownerOf, type ClaimResult } from './claim.ts';
import { createChainSwap, type ChainSwapRequest } from './create-chain.ts';
import { createLegacySubmarine, type LegacySubmarine } from './legacy-submarine.ts';
import { directPaymentOf, type DirectPayment } from './direct-payment.ts';
import { findMagicRoutingHint, signAddress } from '../lightning/magic-routing-hint.ts';
import { ServiceError, VerificationError } from './errors.ts';
import { newKeyPair, newPreimage, toHex, type KeyPair } from './keys.ts';
import type { RescueKey } from './rescue-key.ts';
import type { NetworkName } from './network.ts';
import type { ChainRecord, RefundableRecord, ReverseRecord, SubmarineRecord, SwapRecord } from './records.ts';
import { refundFileOf, type RefundFile } from './refund-file.ts';
import { refundSwap, refundableFromFile, refundableFromRecord, type RefundResult } from './refund.ts';
import { restoreFromRescueKey, type RestoreResult } from './restore.ts';
import { StatusStream, type StatusStreamOptions } from './status-stream.ts';
import type { ClientStore } from './store.ts';
import { serializeTree } from './taproot.ts';
import type { StatusUpdate } from './types.ts';
import { chainMinimalServerAmount, chainPricingOf } from './verify-chain.ts';
import { isContractCurrency } from './chains/contract.ts';
import type { EvmAccount } from './chains/evm.ts';
import type { ContractSwaps } from './contract-swaps.ts';
import type { ContractChainSwaps } from './contract-chain.ts';
import { verifyReverse, verifySubmarine, type Checked, type TimeoutPolicy } from './verify.ts';

export interface SwapClientOptions {
  /** Base URL of the swap service (without /v2). */
  serviceUrl: string;
  network: NetworkName;
  /** Where swaps are kept (a ClientStore over any ClientStorage; FileClientStore in Node); without one nothing is kept. */
  store?: ClientStore;
  /** Chain data and broadcasting, one source per currency; default: the service's own chain endpoints. */
  chain?: ChainSource | readonly ChainSource[];
  timeoutPolicy?: TimeoutPolicy;
  /** The chain side of the pair swaps are created on unless told otherwise: BTC (default) or L-BTC. */
  currency?: string;
  requestTimeoutMs?: number;
  /** Where swap keys and preimages derive from; default: the store's rescue key, else (no store) random ones. */
  rescueKey?: RescueKey;
  /** Contract-chain (RBTC) swaps: a node of the chain and the user's account on it. */
  evm?: EvmSwapOptions;
}

/** A new swap's key and the preimage that goes with it; keyIndex when both derive from the rescue key. */
export interface SwapKey {
  key: KeyPair;
  preimage: Uint8Array;
  preimageHash: Uint8Array;
  keyIndex?: number;
}

export interface EvmSwapOptions {
  /** JSON-RPC URL of a node of the chain; not needed for a browser wallet's account (its EIP-1193 provider answers). */
  rpcUrl?: string;
  account: EvmAccount;
  /** The service's account, when known out of band (else: as its stored swaps name it, else as it first answers). */
  serviceAddress?: string;
  /** Default: DEFAULT_CONTRACT_TIMEOUT_POLICY (RSK's 30-second blocks). */
  timeoutPolicy?: TimeoutPolicy;
}

export interface SpendOptions {
  /** Address the coins go to. */
  destination: string;
  /** Try the key path with the service first (default true). */
  cooperative?: boolean;
  feeRate?: number;
}

export class SwapClient {
  readonly api: ServiceApi;
  readonly network: NetworkName;
  readonly store?: ClientStore;
  readonly currency: string;
  readonly timeoutPolicy?: TimeoutPolicy;
  private readonly sources: readonly ChainSource[];
  private readonly rescue?: RescueKey;
  /** Without a store, indices are handed out from 0 for this client's lifetime only. */
  private nextKeyIndex = 0;
  private readonly evm?: EvmSwapOptions;
  private readonly contractSwaps = new Map<string, Promise<ContractSwaps>>();

  constructor(options: SwapClientOptions) {
    this.api = new ServiceApi(options.serviceUrl, { timeoutMs: options.requestTimeoutMs });
    this.network = options.network;
    this.store = options.store;
    this.currency = options.currency ?? 'BTC';
    this.timeoutPolicy = options.timeoutPolicy;
    this.sources = options.chain === undefined ? [] : 'currency' in options.chain ? [options.chain] : options.chain;
    this.rescue = options.rescueKey;
    this.evm = options.evm;
  }

  /** The given rescue key, else the store's (made on first use, so a restore into a new store can adopt its own). */
  private rescueKey(): RescueKey | undefined {
    return this.rescue ?? this.store?.rescueKey();
  }

  /**
   * The key (and preimage) of a new swap: the rescue key's next index, so a restore finds and reclaims the swap;
   * random without a rescue key.
   */
  newSwapKey(): SwapKey {
    const rescue = this.rescueKey();
    if (rescue === undefined) return { key: newKeyPair(), ...newPreimage() };
    const keyIndex = this.store?.takeKeyIndex() ?? this.nextKeyIndex++;
    return { key: rescue.keyAt(keyIndex), ...rescue.preimageAt(keyIndex), keyIndex };
  }

  /**
   * Swaps on a contract chain (RBTC): connected once, on the `evm` node and account, to the contract the service
   * names — checked to be boltz-core's EtherSwap on the node's chain before anything is sent to it.
   */
  contracts(currency = 'RBTC'): Promise<ContractSwaps> {
    if (!isContractCurrency(currency)) throw new Error(`${currency} is not a contract chain`);
    const evm = this.evm;
    if (evm === undefined) throw new Error(`swaps on ${currency} need an EVM node and account (the evm option)`);
    let connected = this.contractSwaps.get(currency);
    if (connected === undefined) {
      connected = (async () => {
        // Loaded on the first contract swap: ethers is half of what the client loads and most swaps never need it (a
        // `ferry swap` on BTC starts ~0.3 s of CPU sooner; a browser app's bundler keeps ethers out of its first load).
        const [{ connectEvmChain }, { ContractSwaps }] = await Promise.all([import('./chains/evm.ts'), import('./contract-swaps.ts')]);
        const chain = await connectEvmChain({ rpcUrl: evm.rpcUrl, account: evm.account, contracts: await this.api.contracts(currency), currency });
        return new ContractSwaps({ api: this.api, network: this.network, chain, store: this.store, policy: evm.timeoutPolicy, serviceAddress: evm.serviceAddress });
      })();
      connected.catch(() => this.contractSwaps.delete(currency));
      this.contractSwaps.set(currency, connected);
    }
    return connected;
  }

  /**
   * Chain swaps between a contract chain (RBTC) and a UTXO chain, on the same node, account and checked contract as
   * `contracts(currency)`; loaded on first use as that is.
   */
  async contractChains(currency = 'RBTC'): Promise<ContractChainSwaps> {
    const [swaps, { ContractChainSwaps }] = await Promise.all([this.contracts(currency), import('./contract-chain.ts')]);
    return new ContractChainSwaps(this, swaps);
  }

  /** Lets go of the contract chains' node connections. */
  async close(): Promise<void> {
    const connected = [...this.contractSwaps.values()];
    this.contractSwaps.clear();
    for (const swaps of await Promise.allSettled(connected)) if (swaps.status === 'fulfilled') swaps.value.chain.close();
  }

  /** The chain source of a currency: the one given for it, else the service's endpoints. */
  chainOf(currency: string): ChainSource {
    return this.sources.find((source) => source.currency === currency) ?? new ServiceChain(this.api, currency);
  }

  /** The chain source of the client's default currency. */
  get chain(): ChainSource {
    return this.chainOf(this.currency);
  }

  /**
   * A submarine swap paying `invoice` from coins the user locks on chain. The answer is checked (tree,
   * address, amount within the advertised fees, timeout) and the swap stored, with its refund files,
   * before it is returned: only then should anyone send coins to `lockupAddress`.
   */
  async createSubmarine(request: { invoice: string; currency?: string }): Promise<SubmarineRecord> {
    const currency = request.currency ?? this.currency;
    const { key, keyIndex } = this.newSwapKey();
    const pair = (await this.api.submarinePairs())[currency]?.BTC;
    if (pair === undefined) throw new VerificationError(`the service has no ${currency}/BTC submarine pair`);
    const answer = await this.api.createSubmarine({
      from: currency,
      to: 'BTC',
      invoice: request.invoice,
      refundPublicKey: toHex(key.publicKey),
      pairHash: pair.hash,
    });
    const checked = verifySubmarine({
      answer,
      key,
      invoice: request.invoice,
      pair,
      height: await this.chainOf(currency).height(),
      network: this.network,
      currency,
      policy: this.timeoutPolicy,
    });
    const record: SubmarineRecord = {
      ...this.recordBase(checked, key, keyIndex),
      type: 'submarine',
      preimageHash: checked.invoice.paymentHash,
      invoice: request.invoice,
      invoiceAmount: checked.invoiceAmount,
      expectedAmount: checked.expectedAmount,
      acceptZeroConf: checked.acceptZeroConf,
      ...(checked.bip21 !== undefined && { bip21: checked.bip21 }),
    };
    if (this.store) record.refundFiles = this.store.writeRefundFiles(refundFileOf(record));
    this.save(record);
    return record;
  }

  /** What every swap record made from a checked creation answer starts with: ids, keys, the output, its timeout. */
  private recordBase(checked: Checked, key: KeyPair, keyIndex: number | undefined) {
    return {
      version: 1 as const,
      id: checked.id,
      serviceUrl: this.api.url,
      network: this.network,
      currency: checked.currency,
      createdAt: new Date().toISOString(),
      privateKey: toHex(key.privateKey),
      publicKey: toHex(key.publicKey),
      ...(keyIndex !== undefined && { keyIndex }),
      servicePublicKey: toHex(checked.servicePublicKey),
      swapTree: serializeTree(checked.tree),
      timeoutBlockHeight: checked.timeoutBlockHeight,
      lockupAddress: checked.address,
      ...(checked.blindingKey !== undefined && { blindingKey: toHex(checked.blindingKey) }),
      history: [],
    };
  }

  /**
   * A v1 (legacy) submarine swap paying `invoice`, for integrations that still use API v1: checked (redeem script,
   * address, amount, timeout), with its refund file in the spec's format saved before it is returned (with a
   * store). It is not kept as a record: its refund file is everything needed to get the coins back.
   */
  async createLegacySubmarine(request: { invoice: string; currency?: string }): Promise<LegacySubmarine> {
    const currency = request.currency ?? this.currency;
    const { key } = this.newSwapKey();
    const swap = await createLegacySubmarine({
      api: this.api,
      invoice: request.invoice,
      currency,
      key,
      network: this.network,
      height: await this.chainOf(currency).height(),
      policy: this.timeoutPolicy,
    });
    if (this.store) swap.refundFiles = this.store.writeRefundFiles(swap.refundFile);
    return swap;
  }

  /**
   * A reverse swap: the user pays the returned invoice, the service locks coins on chain, we claim them.
   * Exactly one of invoiceAmount / onchainAmount. The answer is checked (the invoice pays our preimage's
   * hash for the asked amount, tree, address, amounts, timeout) and stored before it is returned.
   */
  /**
   * Whether `invoice`'s receiver takes `currency` on chain directly (a reverse swap's magic routing hint): the checked
   * address and amount to pay instead of swapping, or undefined when the invoice has no hint or the service no BIP21.
   */
  directPayment(invoice: string, currency: string = this.currency): Promise<DirectPayment | undefined> {
    return directPaymentOf(this.api, invoice, currency, this.network);
  }

  async createReverse(request: {
    invoiceAmount?: number;
    onchainAmount?: number;
    description?: string;
    currency?: string;
    /** Where a payer may pay the coins directly: signed with the claim key, put into the invoice as a routing hint. */
    directAddress?: string;
  }): Promise<ReverseRecord> {
    if ((request.invoiceAmount === undefined) === (request.onchainAmount === undefined)) {
      throw new Error('give exactly one of invoiceAmount and onchainAmount');
    }
    const currency = request.currency ?? this.currency;
    const { key, preimage, preimageHash, keyIndex } = this.newSwapKey();
    const pair = (await this.api.reversePairs()).BTC?.[currency];
    if (pair === undefined) throw new VerificationError(`the service has no BTC/${currency} reverse pair`);
    const answer = await this.api.createReverse({
      from: 'BTC',
      to: currency,
      preimageHash: toHex(preimageHash),
      claimPublicKey: toHex(key.publicKey),
      ...(request.invoiceAmount !== undefined ? { invoiceAmount: request.invoiceAmount } : { onchainAmount: request.onchainAmount }),
      pairHash: pair.hash,
      ...(request.description !== undefined && { description: request.description }),
      ...(request.directAddress !== undefined && { address: request.directAddress, addressSignature: toHex(signAddress(request.directAddress, key.privateKey)) }),
    });
    if (request.directAddress !== undefined && findMagicRoutingHint(decodeBolt11(answer.invoice))?.publicKey !== toHex(key.publicKey)) {
      throw new VerificationError("the service's invoice lacks the routing hint with this swap's claim key");
    }
    const checked = verifyReverse({
      answer,
      key,
      preimageHash,
      invoiceAmount: request.invoiceAmount,
      onchainAmount: request.onchainAmount,
      pair,
      height: await this.chainOf(currency).height(),
      network: this.network,
      currency,
      policy: this.timeoutPolicy,
    });
    const record: ReverseRecord = {
      ...this.recordBase(checked, key, keyIndex),
      type: 'reverse',
      preimageHash: toHex(preimageHash),
      preimage: toHex(preimage),
      invoice: checked.invoice,
      invoiceAmount: checked.invoiceAmount,
      onchainAmount: checked.onchainAmount,
    };
    this.save(record);
    return record;
  }

  /**
   * A chain swap: we lock on `from`, the service locks on `to`, we claim its lockup with our preimage. Both outputs
   * are checked (trees, addresses, amounts, timeouts) and the swap stored, with refund files for our lockup, first.
   */
  createChain(request: ChainSwapRequest): Promise<ChainRecord> {
    return createChainSwap(this, request);
  }

  async status(id: string): Promise<StatusUpdate> {
    return { ...(await this.api.swapStatus(id)), id };
  }

  /** A status stream on this client's service. */
  statusStream(options?: StatusStreamOptions): StatusStream {
    return new StatusStream(this.api, options);
  }

  /** Answers the service's request for a cooperative claim of a submarine swap; stores the preimage. */
  async cosignClaim(record: SubmarineRecord): Promise<Uint8Array> {
    const preimage = await cosignSubmarineClaim(record, this.api);
    record.preimage = toHex(preimage);
    record.cosigned = true;
    this.save(record);
    return preimage;
  }

  /** Claims a reverse swap's output (key path, else script path); stores the claim. */
  async claim(record: ReverseRecord, options: SpendOptions & { lockupHex?: string }): Promise<ClaimResult> {
    const claimed = await claimReverse(record, { ...options, network: this.network, chain: this.chainOf(record.currency), api: this.api });
    record.destination = options.destination;
    record.claim = { txid: claimed.txid, path: claimed.path, address: options.destination, amount: Number(claimed.amount), fee: Number(claimed.fee) };
    this.save(record);
    return claimed;
  }

  /** What we locked for a chain swap, read from our lockup on our chain source (the service's word is not enough). */
  async lockedAmount(record: ChainRecord): Promise<number> {
    if (record.lockup === undefined) {
      // A refused lockup's status does not carry it: the service names it, our chain source tells what it holds.
      const txid = (await this.api.chainTransactions(record.id)).userLock?.transaction.id;
      if (txid === undefined) throw new Error(`swap ${record.id}: our lockup is not known yet`);
      record.lockup = { txid };
      this.save(record);
    }
    const owner = ownerOf(record);
    const hex = await this.chainOf(record.currency).transactionHex(record.lockup.txid);
    const lockup = await owner.chain.findLockup(hex, owner.outputScript, this.network, owner.blindingKey);
    if (lockup === undefined) throw new VerificationError(`transaction ${record.lockup.txid} does not pay our lockup address ${record.lockupAddress}`);
    return Number(lockup.value);
  }

  /**
   * Claims the service's lockup of a chain swap (key path with its signature, which also hands it ours for its claim
   * of our lockup; else script path). It must hold what was agreed; in a zero-amount swap, what the pair's rate and
   * fees give for what we locked.
   */
  async claimChain(record: ChainRecord, options: SpendOptions & { lockupHex?: string }): Promise<ClaimResult> {
    const agreed = agreedServerAmount(record) || Math.max(1, chainMinimalServerAmount(await this.lockedAmount(record), record.pair));
    const claimed = await claimChain(record, agreed, { ...options, network: this.network, chain: this.chainOf(record.claimSide.currency), api: this.api });
    record.destination = options.destination;
    record.claim = { txid: claimed.txid, path: claimed.path, address: options.destination, amount: Number(claimed.amount), fee: Number(claimed.fee) };
    this.save(record);
    return claimed;
  }

  /**
   * The service's quote for a chain swap whose lockup it refused for its amount, accepted if it pays at least what
   * the pair's current rate and fees give for what we locked; undefined when there is none (then refund instead).
   */
  async acceptQuote(record: ChainRecord): Promise<number | undefined> {
    let quote: number;
    try {
      quote = (await this.api.chainQuote(record.id)).amount;
    } catch (error) {
      if (error instanceof ServiceError && error.status < 500) return undefined;
      throw error;
    }
    const pair = (await this.api.chainPairs())[record.currency]?.[record.claimSide.currency];
    if (pair === undefined) throw new VerificationError(`the service no longer offers ${record.currency} → ${record.claimSide.currency}`);
    const locked = await this.lockedAmount(record);
    const minimal = chainMinimalServerAmount(locked, chainPricingOf(pair));
    if (!Number.isSafeInteger(quote) || quote < minimal) throw new VerificationError(`the service quotes ${quote} sat for our ${locked}: less than its rate and fees give (${minimal})`);
    await this.api.acceptChainQuote(record.id, quote);
    record.quote = { amount: quote, acceptedAt: new Date().toISOString() };
    this.save(record);
    return quote;
  }

  /** Refunds our lockup of a submarine or chain swap (key path, else script path after the timeout); stores the refund. */
  async refund(record: RefundableRecord, options: SpendOptions & { lockupTxid?: string }): Promise<RefundResult> {
    const refunded = await refundSwap(refundableFromRecord(record), { ...options, network: this.network, chain: this.chainOf(record.currency), api: this.api });
    // A chain swap's destination is where its claim pays, on the other chain.
    if (record.type === 'submarine') record.destination = options.destination;
    record.refund = { txid: refunded.txid, path: refunded.path, address: options.destination, amount: Number(refunded.amount), fee: Number(refunded.fee) };
    this.save(record);
    return refunded;
  }

  /** Refunds from a refund file alone (plus the service, if it still answers, for the key path). */
  refundFromFile(file: RefundFile, options: SpendOptions & { lockupTxid?: string; lockupHex?: string; useService?: boolean }): Promise<RefundResult> {
    return refundSwap(refundableFromFile(file), {
      ...options,
      network: this.network,
      chain: this.chainOf(file.currency),
      api: options.useService === false ? undefined : this.api,
    });
  }

  /** Rebuilds the store's records of every swap the rescue key (default: this client's) made, from the service's restore answer. */
  restore(rescueKey?: RescueKey): Promise<RestoreResult> {
    const key = rescueKey ?? this.rescueKey();
    if (key === undefined) throw new Error('no rescue key to restore from');
    return restoreFromRescueKey(this, key);
  }

  save(record: SwapRecord): void {
    this.store?.save(record);
  }
}
