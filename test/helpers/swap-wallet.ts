// A wallet as a Boltz-compatible client runs it, with boltz-core 4.x as its library: it talks to Ferry only
// over HTTP (fetch) and the v2 WebSocket (`ws`), keeps its own keys and preimages, checks everything the
// service returns before it funds or pays anything, and builds its own claim and refund transactions —
// cooperative (MuSig2 key path, service key first, SIGHASH_DEFAULT) or on its own (script path).
// Funds come from the devnet's user wallet (Core JSON-RPC). Ferry itself is reached only through its API.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
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
import WebSocket from 'ws';
import { CoreRpcClient, satToBtc } from '../../src/chains/core-rpc.ts';
import type { DevnetInfo } from '../../src/devnet/index.ts';
import { decodeBolt11 } from '../../src/lightning/bolt11/index.ts';
import type { ReversePair, SubmarinePair } from '../../src/client/types.ts';

export interface KeyPair {
  privateKey: Uint8Array;
  publicKey: Uint8Array; // 33 bytes, compressed
}

export function newKeyPair(): KeyPair {
  const privateKey = secp256k1.utils.randomSecretKey();
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
}

export function newPreimage(): { preimage: Uint8Array; preimageHash: Uint8Array } {
  const preimage = randomBytes(32);
  return { preimage, preimageHash: sha256(preimage) };
}

/** Regtest address of an output script. */
export const addressOfScript = (script: Uint8Array): string => Address(Networks.regtest).encode(OutScript.decode(script));
/** Output script of a regtest address. */
export const scriptOfAddress = (address: string): Uint8Array => OutScript.encode(Address(Networks.regtest).decode(address));

const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** A refusal from the service, kept whole so tests can assert on status and body. */
export class SwapApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: any,
  ) {
    super(`${method} ${path} answered ${status}: ${JSON.stringify(body)}`);
  }
}

export interface ApiAnswer {
  status: number;
  body: any;
}

/** JSON over HTTP to Ferry's API. */
export class SwapApi {
  constructor(readonly url: string) {}

  async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer> {
    const response = await fetch(this.url + path, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  /** Like call, but anything other than `status` throws SwapApiError. */
  async expect(method: 'GET' | 'POST', path: string, body: unknown, status: number): Promise<any> {
    const answer = await this.call(method, path, body);
    if (answer.status !== status) throw new SwapApiError(method, path, answer.status, answer.body);
    return answer.body;
  }
}

/** One `update` of the swap.update channel. */
export interface StatusUpdate {
  id: string;
  status: string;
  transaction?: { id: string; hex?: string; eta?: number };
  failureReason?: string;
  failureDetails?: { expected: number; actual: number };
  zeroConfRejected?: boolean;
}

/** The v2 WebSocket: subscribes to swaps and keeps every update it hears, in order, per swap. */
export class StatusSocket {
  private readonly updates = new Map<string, StatusUpdate[]>();
  private readonly waiters = new Set<() => void>();
  private readonly errors: unknown[] = [];

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.event === 'update') {
        for (const update of message.args as StatusUpdate[]) {
          const list = this.updates.get(update.id) ?? [];
          // a subscribe snapshot may repeat the status a change already delivered
          if (list.at(-1)?.status !== update.status) list.push(update);
          this.updates.set(update.id, list);
        }
      } else if (message.event === 'error') {
        this.errors.push(message);
      }
      for (const wake of [...this.waiters]) wake();
    });
  }

  static open(apiUrl: string): Promise<StatusSocket> {
    const socket = new WebSocket(apiUrl.replace(/^http/, 'ws') + '/v2/ws');
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new StatusSocket(socket)));
      socket.once('error', reject);
    });
  }

  /** Subscribes and waits for the acknowledgement. */
  async subscribe(...ids: string[]): Promise<void> {
    const acked = new Promise<void>((resolve) => {
      const onAck = (data: WebSocket.RawData) => {
        const message = JSON.parse(data.toString());
        if (message.event === 'subscribe' && ids.every((id) => message.args.includes(id))) {
          this.socket.off('message', onAck);
          resolve();
        }
      };
      this.socket.on('message', onAck);
    });
    this.socket.send(JSON.stringify({ op: 'subscribe', channel: 'swap.update', args: ids }));
    await this.until(acked, 10_000, () => `no subscribe acknowledgement for ${ids.join(', ')}`);
  }

  history(id: string): StatusUpdate[] {
    return this.updates.get(id) ?? [];
  }

  statuses(id: string): string[] {
    return this.history(id).map((u) => u.status);
  }

  /** The first update of swap `id` with one of `statuses`, heard before or after this call. */
  waitFor(id: string, statuses: string | string[], timeoutMs = 30_000): Promise<StatusUpdate> {
    const wanted = Array.isArray(statuses) ? statuses : [statuses];
    const found = () => this.history(id).find((u) => wanted.includes(u.status));
    const seen = found();
    if (seen) return Promise.resolve(seen);
    let wake!: () => void;
    const done = new Promise<StatusUpdate>((resolve) => {
      wake = () => {
        const update = found();
        if (update) resolve(update);
      };
      this.waiters.add(wake);
    });
    return this.until(done, timeoutMs, () => {
      return `swap ${id} never reached ${wanted.join(' | ')}; heard: ${JSON.stringify(this.statuses(id))}` +
        (this.errors.length ? `; socket errors: ${JSON.stringify(this.errors)}` : '');
    }).finally(() => this.waiters.delete(wake));
  }

  private async until<T>(promise: Promise<T>, timeoutMs: number, describe: () => string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(describe())), timeoutMs);
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.socket.close();
  }
}

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

// The pair shapes a wallet reads are the SDK's.
export type { ReversePair, SubmarinePair } from '../../src/client/types.ts';

/** ceil(amount × percent / 100) in integers: percentages have at most 4 decimals. */
export function percentageFee(amount: number, percent: number): number {
  const ppm = BigInt(Math.round(percent * 10_000));
  return Number((BigInt(amount) * ppm + 999_999n) / 1_000_000n);
}

/** MuSig2 of [service, wallet] — service key first — tweaked with the swap tree: the lockup's output key. */
function swapMusig(key: KeyPair, servicePublicKey: Uint8Array, tree: Types.SwapTree) {
  return TaprootUtils.tweakMusig(Musig.create(key.privateKey, [servicePublicKey, key.publicKey]), tree.tree);
}

function internalKey(swap: TaprootSwap): Uint8Array {
  return TaprootUtils.toXOnly(Musig.create(swap.key.privateKey, [swap.servicePublicKey, swap.key.publicKey]).internalKey);
}

function requireHexKey(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string' || !/^0[23][0-9a-f]{64}$/.test(value)) throw new Error(`${what} is not a compressed public key: ${value}`);
  return hex.decode(value);
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
  const serialized = SwapTreeSerializer.serializeSwapTree(built);
  if (JSON.stringify(response.swapTree) !== JSON.stringify(serialized)) {
    throw new Error(`swap tree differs from the one built locally: ${JSON.stringify(response.swapTree)} vs ${JSON.stringify(serialized)}`);
  }
  const outputScript = Scripts.p2trOutput(swapMusig(key, servicePublicKey, built).aggPubkey);
  const expected = addressOfScript(outputScript);
  if (address !== expected) throw new Error(`lockup address ${address} does not commit to the tree and keys (expected ${expected})`);
  return { outputScript, address: expected };
}

export interface SwapWalletOptions {
  apiUrl: string;
  devnet: DevnetInfo;
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
  async createSubmarine(request: { invoice: string } | { preimageHash: Uint8Array }): Promise<SubmarineSwap> {
    const key = newKeyPair();
    const pair = await this.submarinePair();
    const invoice = 'invoice' in request ? request.invoice : undefined;
    const preimageHash = invoice !== undefined ? hex.decode(decodeBolt11(invoice).paymentHash) : (request as { preimageHash: Uint8Array }).preimageHash;
    const body = await this.api.expect(
      'POST',
      '/v2/swap/submarine',
      {
        from: 'BTC',
        to: 'BTC',
        ...(invoice !== undefined ? { invoice } : { preimageHash: hex.encode(preimageHash) }),
        refundPublicKey: hex.encode(key.publicKey),
        pairHash: pair.hash,
      },
      201,
    );
    const swap = await this.checkSubmarine(body, key, preimageHash, invoice, pair);
    await this.status.subscribe(swap.id);
    return swap;
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
    const height = await this.rpc.getBlockCount();
    if (!Number.isInteger(body.timeoutBlockHeight) || body.timeoutBlockHeight <= height) {
      throw new Error(`timeoutBlockHeight ${body.timeoutBlockHeight} is not in the future (tip ${height})`);
    }
    const tree = swapTree(false, preimageHash, servicePublicKey, key.publicKey, body.timeoutBlockHeight);
    const { outputScript, address } = checkTree(body, tree, body.address, key, servicePublicKey);
    if (invoice !== undefined) {
      const decoded = decodeBolt11(invoice);
      const invoiceSat = Number(decoded.amountMsat! / 1000n);
      const expected = invoiceSat + percentageFee(invoiceSat, pair.fees.percentage) + pair.fees.minerFees;
      if (body.expectedAmount !== expected) {
        throw new Error(`expectedAmount ${body.expectedAmount} is not invoice ${invoiceSat} + fees = ${expected}`);
      }
      if (typeof body.bip21 !== 'string' || !body.bip21.includes(address) || !body.bip21.includes(`amount=${satToBtc(expected)}`)) {
        throw new Error(`bip21 ${body.bip21} does not ask for ${expected} sat to ${address}`);
      }
    }
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
  async fund(swap: TaprootSwap, amount: number | bigint): Promise<Lockup> {
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
    const details = await this.api.expect('GET', `/v2/swap/submarine/${swap.id}/claim`, undefined, 200);
    const preimage = hex.decode(details.preimage);
    if (!equalBytes(sha256(preimage), swap.preimageHash)) throw new Error('the service shows a preimage of another hash');
    if (details.publicKey !== hex.encode(swap.servicePublicKey)) throw new Error(`claim key ${details.publicKey} is not the swap's`);
    const signed = swapMusig(swap.key, swap.servicePublicKey, swap.tree)
      .message(hex.decode(details.transactionHash))
      .generateNonce()
      .aggregateNonces([[swap.servicePublicKey, hex.decode(details.pubNonce)]])
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
    const key = newKeyPair();
    const { preimage, preimageHash } = newPreimage();
    const pair = await this.reversePair();
    const body = await this.api.expect(
      'POST',
      '/v2/swap/reverse',
      {
        from: 'BTC',
        to: 'BTC',
        invoiceAmount,
        preimageHash: hex.encode(preimageHash),
        claimPublicKey: hex.encode(key.publicKey),
        pairHash: pair.hash,
      },
      201,
    );
    const swap = await this.checkReverse(body, key, preimage, invoiceAmount, pair);
    await this.status.subscribe(swap.id);
    return swap;
  }

  /** Everything a wallet must verify in a reverse creation answer before it pays the invoice. */
  async checkReverse(body: any, key: KeyPair, preimage: Uint8Array, invoiceAmount: number, pair: ReversePair): Promise<ReverseSwap> {
    const preimageHash = sha256(preimage);
    if (typeof body.id !== 'string') throw new Error(`no swap id: ${JSON.stringify(body)}`);
    const servicePublicKey = requireHexKey(body.refundPublicKey, 'refundPublicKey');
    const invoice = decodeBolt11(body.invoice);
    if (invoice.paymentHash !== hex.encode(preimageHash)) throw new Error(`the invoice's payment hash ${invoice.paymentHash} is not ours`);
    if (invoice.amountMsat !== BigInt(invoiceAmount) * 1000n) throw new Error(`the invoice asks for ${invoice.amountMsat} msat, not ${invoiceAmount} sat`);
    const nodes = await this.api.expect('GET', '/v2/nodes', undefined, 200);
    if (invoice.payeeNodeKey !== nodes.BTC.LND.publicKey) throw new Error(`the invoice is payable to ${invoice.payeeNodeKey}, not the service's node`);
    const onchain = invoiceAmount - percentageFee(invoiceAmount, pair.fees.percentage) - pair.fees.minerFees.lockup;
    if (body.onchainAmount !== onchain) throw new Error(`onchainAmount ${body.onchainAmount} is not ${onchain}`);
    const height = await this.rpc.getBlockCount();
    if (!Number.isInteger(body.timeoutBlockHeight) || body.timeoutBlockHeight <= height) {
      throw new Error(`timeoutBlockHeight ${body.timeoutBlockHeight} is not in the future (tip ${height})`);
    }
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
    return this.api.call('POST', '/v2/chain/BTC/transaction', { hex: txHex });
  }

  private async broadcastBuilt(tx: Transaction): Promise<BuiltTransaction> {
    const result = built(tx);
    const answer = await this.broadcast(result.hex);
    if (answer.status !== 201 || answer.body.id !== result.txid) {
      throw new SwapApiError('POST', '/v2/chain/BTC/transaction', answer.status, answer.body);
    }
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
