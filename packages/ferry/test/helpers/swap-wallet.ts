// A wallet as a Boltz-compatible client runs it, with boltz-core 4.x as its library: it talks to Ferry only
// over HTTP (fetch) and the v2 WebSocket (`ws`), keeps its own keys and preimages, checks everything the
// service returns before it funds or pays anything, and builds its own claim and refund transactions —
// cooperative (MuSig2 key path, service key first, SIGHASH_DEFAULT) or on its own (script path).
// Funds come from the devnet's user wallet (Core JSON-RPC). Ferry itself is reached only through its API
// (swap-api.ts, shared with the Liquid wallet).
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { Address, OutScript, SigHash, Transaction } from '@scure/btc-signer';
import { hash160 } from '@scure/btc-signer/utils.js';
import {
  Musig,
  Networks,
  OutputType,
  Scripts,
  SwapTreeSerializer,
  TaprootUtils,
  constructClaimTransaction,
  constructRefundTransaction,
  reverseSwapTree,
  swapTree,
} from 'boltz-core';
import type { ClaimDetails, Types } from 'boltz-core';
import { CoreRpcClient, satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import {
  StatusSocket,
  SwapApi,
  checkReverseInvoice,
  checkSerializedTree,
  checkSubmarineAmount,
  checkTimeout,
  equalBytes,
  newKeyPair,
  requestReverse,
  requestReverseWithInvoice,
  requestSubmarine,
  requireHexKey,
  submarineClaimRequest,
  SwapApiError,
  type ApiAnswer,
  type KeyPair,
  type ReversePair,
  type SubmarinePair,
  type SubmarineRequest,
} from './swap-api.ts';

export * from './swap-api.ts';

/** Regtest address of an output script. */
export const addressOfScript = (script: Uint8Array): string => Address(Networks.regtest).encode(OutScript.decode(script));
/** Output script of a regtest address. */
export const scriptOfAddress = (address: string): Uint8Array => OutScript.encode(Address(Networks.regtest).decode(address));

/** A swap output on chain: where it is and what it holds. */
export interface Lockup {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
  hex: string;
}

/** An output of a key the wallet holds. */
export interface Coin extends Lockup {
  key: KeyPair;
}

/** A transaction the wallet built. */
export interface BuiltTransaction {
  txid: string;
  hex: string;
  /** Value of its single output, which pays the wallet's destination. */
  value: bigint;
}

interface TaprootSwap {
  id: string;
  timeoutBlockHeight: number;
  /** The service's key: claim key of submarine swaps, refund key of reverse swaps. */
  servicePublicKey: Uint8Array;
  /** The wallet's own key: refund key of submarine swaps, claim key of reverse swaps. */
  key: KeyPair;
  preimageHash: Uint8Array;
  tree: Types.SwapTree;
  outputScript: Uint8Array;
  address: string;
}

export interface SubmarineSwap extends TaprootSwap {
  kind: 'submarine';
  invoice?: string;
  expectedAmount?: number;
  acceptZeroConf?: boolean;
  bip21?: string;
}

export interface ReverseSwap extends TaprootSwap {
  kind: 'reverse';
  preimage: Uint8Array;
  invoice: string;
  invoiceAmount: number;
  onchainAmount: number;
}

/** MuSig2 of [service, wallet] — service key first — tweaked with the swap tree: the lockup's output key. */
function swapMusig(key: KeyPair, servicePublicKey: Uint8Array, tree: Types.SwapTree) {
  return TaprootUtils.tweakMusig(Musig.create(key.privateKey, [servicePublicKey, key.publicKey]), tree.tree);
}

function internalKey(swap: TaprootSwap): Uint8Array {
  return TaprootUtils.toXOnly(Musig.create(swap.key.privateKey, [swap.servicePublicKey, swap.key.publicKey]).internalKey);
}

/**
 * The checks a wallet makes before it sends a coin: the tree is the one it would build from its own key, the
 * service's key, its preimage hash and the timeout; the address commits to that tree and both keys.
 */
function checkTree(
  response: { swapTree: unknown; timeoutBlockHeight: unknown },
  built: Types.SwapTree,
  address: unknown,
  key: KeyPair,
  servicePublicKey: Uint8Array,
): { outputScript: Uint8Array; address: string } {
  checkSerializedTree(response.swapTree, SwapTreeSerializer.serializeSwapTree(built));
  const outputScript = Scripts.p2trOutput(swapMusig(key, servicePublicKey, built).aggPubkey);
  const expected = addressOfScript(outputScript);
  if (address !== expected) throw new Error(`lockup address ${address} does not commit to the tree and keys (expected ${expected})`);
  return { outputScript, address: expected };
}

export interface SwapWalletOptions {
  apiUrl: string;
  devnet: DevnetInfo;
}


/**
 * Creates against a pair read just before, as wallets do; when the quote moved in between (a block changed the miner
 * fees: `invalid pair hash`), reads it again and creates once more, as the reference's web app does.
 */
async function withFreshQuote<P extends { hash: string }, A>(read: () => Promise<P>, create: (pair: P) => Promise<A>): Promise<{ pair: P; answer: A }> {
  for (let attempt = 1; ; attempt++) {
    const pair = await read();
    try {
      return { pair, answer: await create(pair) };
    } catch (error) {
      const stale = error instanceof SwapApiError && error.status === 400 && error.body?.error === 'invalid pair hash';
      if (!stale || attempt >= 3) throw error;
    }
  }
}

export class SwapWallet {
  readonly api: SwapApi;
  readonly rpc: CoreRpcClient;
  /** The devnet wallet that funds lockups and receives claims and refunds. */
  readonly user: CoreRpcClient;

  private constructor(
    options: SwapWalletOptions,
    readonly status: StatusSocket,
  ) {
    this.api = new SwapApi(options.apiUrl);
    const { rpcUrl, rpcUser, rpcPassword, wallets } = options.devnet.bitcoin;
    this.rpc = new CoreRpcClient({ url: rpcUrl, user: rpcUser, password: rpcPassword });
    this.user = this.rpc.wallet(wallets.user);
  }

  static async open(options: SwapWalletOptions): Promise<SwapWallet> {
    return new SwapWallet(options, await StatusSocket.open(options.apiUrl));
  }

  close(): void {
    this.status.close();
  }

  async submarinePair(): Promise<SubmarinePair> {
    return (await this.api.expect('GET', '/v2/swap/submarine', undefined, 200)).BTC.BTC;
  }

  async reversePair(): Promise<ReversePair> {
    return (await this.api.expect('GET', '/v2/swap/reverse', undefined, 200)).BTC.BTC;
  }

  /** A fresh address of the user wallet, as an output script: where claims and refunds pay. */
  async destination(): Promise<Uint8Array> {
    return scriptOfAddress(await this.user.getNewAddress());
  }

  // ----- submarine swaps (chain → Lightning) -----

  /** Creates a submarine swap, checks the answer, and follows its status over the WebSocket. */
  async createSubmarine(request: SubmarineRequest): Promise<SubmarineSwap> {
    const { pair, answer } = await withFreshQuote(
      () => this.submarinePair(),
      (quote) => requestSubmarine(this.api, 'BTC', 'BTC', quote.hash, request),
    );
    const { body, key, invoice, preimageHash } = answer;
    return this.status.follow(await this.checkSubmarine(body, key, preimageHash, invoice, pair));
  }

  /** Everything a wallet must verify in a submarine creation answer before it locks coins. */
  async checkSubmarine(
    body: any,
    key: KeyPair,
    preimageHash: Uint8Array,
    invoice: string | undefined,
    pair: SubmarinePair,
  ): Promise<SubmarineSwap> {
    if (typeof body.id !== 'string') throw new Error(`no swap id: ${JSON.stringify(body)}`);
    const servicePublicKey = requireHexKey(body.claimPublicKey, 'claimPublicKey');
    checkTimeout(body.timeoutBlockHeight, await this.rpc.getBlockCount());
    const tree = swapTree(false, preimageHash, servicePublicKey, key.publicKey, body.timeoutBlockHeight);
    const { outputScript, address } = checkTree(body, tree, body.address, key, servicePublicKey);
    if (invoice !== undefined) checkSubmarineAmount(body, invoice, pair, address);
    return {
      kind: 'submarine',
      id: body.id,
      timeoutBlockHeight: body.timeoutBlockHeight,
      servicePublicKey,
      key,
      preimageHash,
      tree,
      outputScript,
      address,
      invoice,
      expectedAmount: body.expectedAmount,
      acceptZeroConf: body.acceptZeroConf,
      bip21: body.bip21,
    };
  }

  /** Locks `amount` sat to the swap from the user wallet. */
  async fund(swap: Pick<TaprootSwap, 'address' | 'outputScript'>, amount: number | bigint): Promise<Lockup> {
    const txid = await this.user.sendToAddress(swap.address, satToBtc(amount));
    const txHex = await this.rpc.getRawTransactionHex(txid);
    const lockup = findOutput(txHex, swap.outputScript);
    if (lockup === undefined) throw new Error(`funding ${txid} has no output to ${swap.address}`);
    return lockup;
  }

  /**
   * A coin of the wallet's own key (P2WPKH), paid from the user wallet. The devnet wallet signals RBF on
   * everything it sends; spending a coin of our own lets the wallet send a final (non-RBF) lockup, which a
   * service may accept before it confirms. Mine a block before spending it, or the lockup inherits an RBF parent.
   */
  async ownCoin(amount: number | bigint): Promise<Coin> {
    const key = newKeyPair();
    const script = Scripts.p2wpkhOutput(hash160(key.publicKey));
    const txid = await this.user.sendToAddress(addressOfScript(script), satToBtc(amount));
    const output = findOutput(await this.rpc.getRawTransactionHex(txid), script)!;
    return { ...output, key };
  }

  /**
   * Locks `amount` to the swap from `coin` in a transaction with final sequence numbers (no RBF) paying the
   * service's fee estimate; the change goes back to the user wallet. Broadcast through the API.
   */
  async fundFinal(swap: TaprootSwap, coin: Coin, amount: number): Promise<Lockup> {
    const { BTC: satPerVbyte } = await this.api.expect('GET', '/v2/chain/fees', undefined, 200);
    // 1 P2WPKH input, a P2TR and a P2WPKH output: 153 vbytes; a little more pays for rounding.
    const fee = BigInt(Math.ceil(satPerVbyte * 160));
    const tx = new Transaction({ version: 2 });
    tx.addInput({ txid: coin.txid, index: coin.vout, sequence: 0xffffffff, witnessUtxo: { script: coin.script, amount: coin.value } });
    tx.addOutput({ script: swap.outputScript, amount: BigInt(amount) });
    tx.addOutput({ script: await this.destination(), amount: coin.value - BigInt(amount) - fee });
    tx.signIdx(coin.key.privateKey, 0);
    tx.finalizeIdx(0);
    await this.broadcastBuilt(tx);
    return findOutput(hex.encode(tx.toBytes(true, true)), swap.outputScript)!;
  }

  /**
   * Answers the service's request for a cooperative claim, but only after checking that the preimage it
   * shows is the one of the swap's invoice: that is the proof the invoice was paid.
   */
  async cooperativeClaim(swap: SubmarineSwap): Promise<Uint8Array> {
    const { preimage, pubNonce, transactionHash } = await submarineClaimRequest(this.api, swap.id, swap.preimageHash, swap.servicePublicKey);
    const signed = swapMusig(swap.key, swap.servicePublicKey, swap.tree)
      .message(transactionHash)
      .generateNonce()
      .aggregateNonces([[swap.servicePublicKey, pubNonce]])
      .initializeSession()
      .signPartial();
    await this.api.expect(
      'POST',
      `/v2/swap/submarine/${swap.id}/claim`,
      { pubNonce: hex.encode(signed.publicNonce), partialSignature: hex.encode(signed.ourPartialSignature) },
      200,
    );
    return preimage;
  }

  /** Key-path refund signed together with the service; broadcast through the API. */
  async cooperativeRefund(swap: SubmarineSwap, lockup: Lockup, destination: Uint8Array, fee = 1_000n): Promise<BuiltTransaction> {
    const tx = constructRefundTransaction(
      [{ ...coopDetails(lockup, swap.key), type: OutputType.Taproot, cooperative: true }],
      destination,
      0,
      fee,
      true,
    );
    const signature = await this.signWithService(swap, lockup, tx, (body) =>
      this.api.expect('POST', `/v2/swap/submarine/${swap.id}/refund`, body, 200),
    );
    tx.updateInput(0, { finalScriptWitness: [signature] }, true);
    return this.broadcastBuilt(tx);
  }

  /** Script-path refund through the refund leaf; not broadcast. nLockTime defaults to the swap timeout. */
  scriptPathRefund(swap: SubmarineSwap, lockup: Lockup, destination: Uint8Array, options: { lockTime?: number; fee?: bigint } = {}): BuiltTransaction {
    const tx = constructRefundTransaction(
      [{ ...coopDetails(lockup, swap.key), type: OutputType.Taproot, swapTree: swap.tree, internalKey: internalKey(swap) }],
      destination,
      options.lockTime ?? swap.timeoutBlockHeight,
      options.fee ?? 1_000n,
      true,
    );
    return built(tx);
  }

  // ----- reverse swaps (Lightning → chain) -----

  /** Creates a reverse swap with a fresh preimage and key, checks the answer, and follows its status. */
  async createReverse(invoiceAmount: number): Promise<ReverseSwap> {
    const { pair, answer } = await withFreshQuote(
      () => this.reversePair(),
      (quote) => requestReverse(this.api, 'BTC', 'BTC', quote.hash, invoiceAmount),
    );
    const { body, key, preimage } = answer;
    return this.status.follow(await this.checkReverse(body, key, preimage, invoiceAmount, pair));
  }

  /** A reverse swap paid through the wallet's own invoice (BOLT12), which `invoiceFor` makes for the preimage hash. */
  async createReverseWithInvoice(invoiceAmount: number, invoiceFor: (preimageHash: Uint8Array) => string): Promise<ReverseSwap> {
    const pair = await this.reversePair();
    const { body, key, preimage } = await requestReverseWithInvoice(this.api, pair.hash, invoiceFor);
    return this.status.follow(await this.checkReverse(body, key, preimage, invoiceAmount, pair));
  }

  /** Everything a wallet must verify in a reverse creation answer before it pays the invoice. */
  async checkReverse(body: any, key: KeyPair, preimage: Uint8Array, invoiceAmount: number, pair: ReversePair): Promise<ReverseSwap> {
    const preimageHash = sha256(preimage);
    await checkReverseInvoice(this.api, body, preimageHash, invoiceAmount, pair);
    const servicePublicKey = requireHexKey(body.refundPublicKey, 'refundPublicKey');
    checkTimeout(body.timeoutBlockHeight, await this.rpc.getBlockCount());
    const tree = reverseSwapTree(false, preimageHash, key.publicKey, servicePublicKey, body.timeoutBlockHeight);
    const { outputScript, address } = checkTree(body, tree, body.lockupAddress, key, servicePublicKey);
    return {
      kind: 'reverse',
      id: body.id,
      timeoutBlockHeight: body.timeoutBlockHeight,
      servicePublicKey,
      key,
      preimage,
      preimageHash,
      tree,
      outputScript,
      address,
      invoice: body.invoice,
      invoiceAmount,
      onchainAmount: body.onchainAmount,
    };
  }

  /** The service's lockup in `txHex`, checked to pay the promised amount. */
  reverseLockup(swap: ReverseSwap, txHex: string): Lockup {
    const lockup = findOutput(txHex, swap.outputScript);
    if (lockup === undefined) throw new Error(`the service's transaction does not pay ${swap.address}`);
    if (lockup.value !== BigInt(swap.onchainAmount)) throw new Error(`the service locked ${lockup.value}, not ${swap.onchainAmount}`);
    return lockup;
  }

  /** Key-path claim: hands the preimage over with the transaction, gets the service's partial signature, broadcasts. */
  async cooperativeReverseClaim(swap: ReverseSwap, lockup: Lockup, destination: Uint8Array, fee = 1_000n): Promise<BuiltTransaction> {
    const tx = constructClaimTransaction(
      [{ ...coopDetails(lockup, swap.key), type: OutputType.Taproot, cooperative: true, preimage: swap.preimage } as ClaimDetails],
      destination,
      fee,
      true,
    );
    const signature = await this.signWithService(swap, lockup, tx, (body) =>
      this.api.expect('POST', `/v2/swap/reverse/${swap.id}/claim`, { preimage: hex.encode(swap.preimage), ...body }, 200),
    );
    tx.updateInput(0, { finalScriptWitness: [signature] }, true);
    return this.broadcastBuilt(tx);
  }

  /** Script-path claim through the claim leaf with the preimage; not broadcast. */
  scriptPathReverseClaim(swap: ReverseSwap, lockup: Lockup, destination: Uint8Array, fee = 1_000n): BuiltTransaction {
    const tx = constructClaimTransaction(
      [
        {
          ...coopDetails(lockup, swap.key),
          type: OutputType.Taproot,
          swapTree: swap.tree,
          internalKey: internalKey(swap),
          preimage: swap.preimage,
        } as ClaimDetails,
      ],
      destination,
      fee,
      true,
    );
    return built(tx);
  }

  // ----- chain -----

  /** POST /v2/chain/BTC/transaction: the answer as is (201 {id}, or 400 {error, ...}). */
  broadcast(txHex: string): Promise<ApiAnswer> {
    return this.api.broadcast('BTC', txHex);
  }

  private async broadcastBuilt(tx: Transaction): Promise<BuiltTransaction> {
    const result = built(tx);
    await this.api.broadcastOwn('BTC', result.txid, result.hex);
    return result;
  }

  /**
   * One MuSig2 round with the service over the key path of `lockup` (input 0 of `tx`): our nonce and the
   * unsigned transaction go out, its nonce and partial signature come back, are verified, and aggregated.
   */
  private async signWithService(
    swap: TaprootSwap,
    lockup: Lockup,
    tx: Transaction,
    exchange: (body: { pubNonce: string; transaction: string; index: number }) => Promise<any>,
  ): Promise<Uint8Array> {
    const sighash = tx.preimageWitnessV1(0, [lockup.script], SigHash.DEFAULT, [lockup.value]);
    const ours = swapMusig(swap.key, swap.servicePublicKey, swap.tree).message(sighash).generateNonce();
    const answer = await exchange({ pubNonce: hex.encode(ours.publicNonce), transaction: hex.encode(tx.toBytes(true, true)), index: 0 });
    const partial = hex.decode(answer.partialSignature);
    const session = ours.aggregateNonces([[swap.servicePublicKey, hex.decode(answer.pubNonce)]]).initializeSession();
    if (!session.verifyPartial(swap.servicePublicKey, partial)) throw new Error("the service's partial signature does not verify");
    return session.signPartial().addPartial(swap.servicePublicKey, partial).aggregatePartials();
  }
}

function coopDetails(lockup: Lockup, key: KeyPair) {
  return { transactionId: lockup.txid, vout: lockup.vout, script: lockup.script, amount: lockup.value, privateKey: key.privateKey };
}

function built(tx: Transaction): BuiltTransaction {
  return { txid: tx.id, hex: hex.encode(tx.toBytes(true, true)), value: tx.getOutput(0).amount! };
}

/** The output of `txHex` paying `script`. */
export function findOutput(txHex: string, script: Uint8Array): Lockup | undefined {
  const tx = Transaction.fromRaw(hex.decode(txHex), { allowUnknownOutputs: true });
  for (let vout = 0; vout < tx.outputsLength; vout++) {
    const output = tx.getOutput(vout);
    if (output.script && output.amount !== undefined && equalBytes(output.script, script)) {
      return { txid: tx.id, vout, value: output.amount, script: output.script, hex: txHex };
    }
  }
  return undefined;
}
