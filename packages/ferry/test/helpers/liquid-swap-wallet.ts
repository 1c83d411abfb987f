// A Liquid wallet as a Boltz-compatible client runs it for L-BTC/BTC swaps, the Liquid counterpart of
// swap-wallet.ts: it talks to Ferry only over HTTP and the v2 WebSocket (swap-api.ts), keeps its own keys and
// preimages, and before it funds or pays anything rebuilds the swap tree from its own key, the service's key, the
// preimage hash and the timeout, and checks that the confidential address is that tree's Taproot output (MuSig2 of
// [service, wallet] tweaked the Elements way) blinded to the blinding key the service gave. It funds from the devnet
// Elements "user" wallet (sendtoaddress over JSON-RPC), unblinds lockups with the swap's blinding key, and builds its
// own blinded claims and refunds — cooperative (MuSig2 key path) or alone (script path). The swap library is a
// LiquidSwapLibrary: boltz-core 4.x (liquid-boltz-core-4.ts) or 2.x (liquid-boltz-core-2.ts); only its calls differ.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import zkpModule, { type Secp256k1ZKP } from '@vulpemventures/secp256k1-zkp';
import {
  AssetHash,
  Blinder,
  Creator,
  CreatorInput,
  Extractor,
  Finalizer,
  Pset,
  Transaction,
  Updater,
  ZKPGenerator,
  ZKPValidator,
  address,
  confidential,
  witnessStackToScriptWitness,
  type Secp256k1Interface,
  type networks,
} from 'liquidjs-lib';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { Rpc } from './devnet-rpc.ts';
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
  requestSubmarine,
  requireHexKey,
  submarineClaimRequest,
  type ApiAnswer,
  type KeyPair,
  type ReversePair,
  type SubmarinePair,
  type SubmarineRequest,
} from './swap-api.ts';
import type {
  BuiltLiquidTransaction,
  LiquidDestination,
  LiquidLockup,
  LiquidReverseSwap,
  LiquidSubmarineSwap,
  LiquidSwapBase,
  LiquidSwapLibrary,
  LiquidTree,
} from './liquid-swap-library.ts';

export type * from './liquid-swap-library.ts';

/** What the wallet pays for its claims and refunds: about 0.5 sat/vbyte, five times Liquid's floor. */
export const LIQUID_SPEND_FEE = 100n;

let zkp: Promise<Secp256k1ZKP> | undefined;
const initialised = new Set<LiquidSwapLibrary>();

/** secp256k1-zkp, loaded once and handed to each library on first use. */
async function loadLibrary(library: LiquidSwapLibrary): Promise<Secp256k1ZKP> {
  // CommonJS: under Node's ESM the default import is module.exports, whose .default is the loader.
  zkp ??= zkpModule.default();
  const loaded = await zkp;
  if (!initialised.has(library)) library.init(loaded);
  initialised.add(library);
  return loaded;
}

const satToBtc = (sat: number | bigint): number => Number(sat) / 1e8;

/** Sends the wallet's unsigned spend to the service for its MuSig2 half: its nonce and partial signature come back. */
export type SignatureExchange = (body: { pubNonce: string; transaction: string; index: number }) => Promise<{ pubNonce: string; partialSignature: string }>;

export interface LiquidSwapWalletOptions {
  apiUrl: string;
  devnet: DevnetInfo;
  library: LiquidSwapLibrary;
}

export class LiquidSwapWallet {
  readonly api: SwapApi;
  readonly library: LiquidSwapLibrary;
  readonly rpc: Rpc;
  /** The devnet Elements wallet that funds lockups and receives claims and refunds. */
  readonly user: Rpc;

  private constructor(
    options: LiquidSwapWalletOptions,
    readonly status: StatusSocket,
    private readonly zkp: Secp256k1ZKP,
  ) {
    this.api = new SwapApi(options.apiUrl);
    this.library = options.library;
    this.rpc = new Rpc(options.devnet.elements);
    this.user = this.rpc.for(options.devnet.elements.wallets.user);
  }

  /** Opens the wallet; refuses a node whose genesis block is not the one the library's regtest commits to. */
  static async open(options: LiquidSwapWalletOptions): Promise<LiquidSwapWallet> {
    const zkp = await loadLibrary(options.library);
    const genesis = await new Rpc(options.devnet.elements).call<string>('getblockhash', 0);
    if (genesis !== Buffer.from(options.library.network.genesisBlockHash).reverse().toString('hex')) {
      throw new Error(`the node's genesis block ${genesis} is not ${options.library.name}'s Liquid regtest`);
    }
    return new LiquidSwapWallet(options, await StatusSocket.open(options.apiUrl), zkp);
  }

  close(): void {
    this.status.close();
  }

  get network(): networks.Network {
    return this.library.network;
  }

  async submarinePair(): Promise<SubmarinePair> {
    return (await this.api.expect('GET', '/v2/swap/submarine', undefined, 200))['L-BTC'].BTC;
  }

  async reversePair(): Promise<ReversePair> {
    return (await this.api.expect('GET', '/v2/swap/reverse', undefined, 200)).BTC['L-BTC'];
  }

  /** A fresh confidential address of the user wallet: where claims and refunds pay, blinded. */
  async destination(): Promise<LiquidDestination> {
    const confidentialAddress = await this.user.call<string>('getnewaddress');
    const { unconfidentialAddress, blindingKey } = address.fromConfidential(confidentialAddress);
    return { address: confidentialAddress, script: address.toOutputScript(unconfidentialAddress, this.network), blindingPublicKey: blindingKey };
  }

  // ----- submarine swaps (L-BTC → Lightning) -----

  /** Creates a submarine swap, checks the answer, and follows its status over the WebSocket. */
  async createSubmarine(request: SubmarineRequest): Promise<LiquidSubmarineSwap> {
    const pair = await this.submarinePair();
    const { body, key, invoice, preimageHash } = await requestSubmarine(this.api, 'L-BTC', 'BTC', pair.hash, request);
    return this.status.follow(await this.checkSubmarine(body, key, preimageHash, invoice, pair));
  }

  /** Everything a wallet verifies in a submarine creation answer before it locks coins. */
  async checkSubmarine(body: any, key: KeyPair, preimageHash: Uint8Array, invoice: string | undefined, pair: SubmarinePair): Promise<LiquidSubmarineSwap> {
    if (typeof body.id !== 'string') throw new Error(`no swap id: ${JSON.stringify(body)}`);
    const servicePublicKey = requireHexKey(body.claimPublicKey, 'claimPublicKey');
    const timeout = checkTimeout(body.timeoutBlockHeight, await this.rpc.call<number>('getblockcount'));
    const tree = this.library.swapTree('submarine', preimageHash, servicePublicKey, key.publicKey, timeout);
    const output = this.checkOutput(body, tree, body.address, key, servicePublicKey);
    if (invoice !== undefined) {
      checkSubmarineAmount(body, invoice, pair, output.address);
      if (!body.bip21.includes(`assetid=${this.network.assetHash}`)) throw new Error(`bip21 ${body.bip21} does not ask for L-BTC`);
    }
    return {
      kind: 'submarine',
      id: body.id,
      timeoutBlockHeight: timeout,
      servicePublicKey,
      key,
      preimageHash,
      tree,
      ...output,
      invoice,
      expectedAmount: body.expectedAmount,
      acceptZeroConf: body.acceptZeroConf,
      bip21: body.bip21,
    };
  }

  /** Sends `amount` sat from the user wallet to the swap's confidential address; the lockup, unblinded. */
  async fund(swap: LiquidSwapBase, amount: number | bigint): Promise<LiquidLockup> {
    const txid = await this.user.call<string>('sendtoaddress', swap.address, satToBtc(amount));
    const lockup = this.lockupIn(swap, await this.rpc.call<string>('getrawtransaction', txid));
    if (lockup === undefined) throw new Error(`funding ${txid} has no output to ${swap.address}`);
    return lockup;
  }

  /**
   * Locks `amount` in a transaction that signals RBF (nSequence 0xfffffffd), which a service must not trust
   * unconfirmed: the user wallet pays a coin to a key of the wallet's own (unblinded), and the wallet spends it with
   * liquidjs-lib's PSET roles to the swap (blinded to the swap's key) and its change (blinded to the user wallet).
   */
  async fundReplaceable(swap: LiquidSubmarineSwap, amount: number): Promise<LiquidLockup> {
    const key = newKeyPair();
    const coinScript = Buffer.concat([Buffer.of(0x00, 0x14), ripemd160(sha256(key.publicKey))]);
    const coinValue = amount + 10_000;
    const coinTxid = await this.user.call<string>('sendtoaddress', address.fromOutputScript(coinScript, this.network), satToBtc(coinValue));
    const coinTx = Transaction.fromHex(await this.rpc.call<string>('getrawtransaction', coinTxid));
    const coinVout = coinTx.outs.findIndex((out) => equalBytes(out.script, coinScript));
    const [change, fee, asset] = [await this.destination(), Number(LIQUID_SPEND_FEE), this.network.assetHash];
    const pset = Creator.newPset();
    pset.addInput(new CreatorInput(coinTxid, coinVout, 0xfffffffd).toPartialInput());
    const updater = new Updater(pset);
    updater.addInWitnessUtxo(0, coinTx.outs[coinVout]).addInSighashType(0, Transaction.SIGHASH_ALL);
    updater.addOutputs([
      { script: Buffer.from(swap.outputScript), amount, asset, blindingPublicKey: Buffer.from(secp256k1.getPublicKey(swap.blindingKey, true)), blinderIndex: 0 },
      { script: Buffer.from(change.script), amount: coinValue - amount - fee, asset, blindingPublicKey: Buffer.from(change.blindingPublicKey), blinderIndex: 0 },
      { amount: fee, asset },
    ]);
    const zero = Buffer.alloc(32);
    const owned = [{ index: 0, value: String(coinValue), asset: AssetHash.fromHex(asset).bytesWithoutPrefix, valueBlindingFactor: zero, assetBlindingFactor: zero }];
    const zkpLib = this.zkp as unknown as Secp256k1Interface;
    const generator = new ZKPGenerator(zkpLib, ZKPGenerator.WithOwnedInputs(owned));
    const outputBlindingArgs = generator.blindOutputs(pset, Pset.ECCKeysGenerator(this.zkp.ecc));
    new Blinder(pset, owned, new ZKPValidator(zkpLib), generator).blindLast({ outputBlindingArgs });
    const der = secp256k1.sign(pset.getInputPreimage(0, Transaction.SIGHASH_ALL), key.privateKey, { prehash: false, format: 'der' });
    const witness = [Buffer.concat([der, Buffer.of(Transaction.SIGHASH_ALL)]), Buffer.from(key.publicKey)];
    new Finalizer(pset).finalizeInput(0, () => ({ finalScriptWitness: witnessStackToScriptWitness(witness) }));
    const tx = Extractor.extract(pset);
    await this.api.broadcastOwn('L-BTC', tx.getId(), tx.toHex());
    return this.lockupIn(swap, tx.toHex())!;
  }

  /** Co-signs the service's claim once it shows the preimage of the swap's invoice (the proof it paid). */
  async cooperativeClaim(swap: LiquidSubmarineSwap): Promise<Uint8Array> {
    const request = await submarineClaimRequest(this.api, swap.id, swap.preimageHash, swap.servicePublicKey);
    const round = this.library.musig(swap.key, swap.servicePublicKey, swap.tree, request.transactionHash);
    const partialSignature = round.sign(request.pubNonce);
    const body = { pubNonce: hex.encode(round.publicNonce), partialSignature: hex.encode(partialSignature) };
    await this.api.expect('POST', `/v2/swap/submarine/${swap.id}/claim`, body, 200);
    return request.preimage;
  }

  /** Key-path refund signed together with the service; broadcast through the API. */
  async cooperativeRefund(swap: LiquidSubmarineSwap, lockup: LiquidLockup, destination: LiquidDestination, fee = LIQUID_SPEND_FEE): Promise<BuiltLiquidTransaction> {
    const tx = this.library.spend({ ...this.spending(swap, lockup, destination, fee), cooperative: true, lockTime: 0 });
    return this.signAndBroadcast(swap, lockup, tx, fee, (body) => this.api.expect('POST', `/v2/swap/submarine/${swap.id}/refund`, body, 200));
  }

  /** Script-path refund through the refund leaf; not broadcast. nLockTime defaults to the swap timeout. */
  scriptPathRefund(swap: LiquidSubmarineSwap, lockup: LiquidLockup, destination: LiquidDestination, options: { lockTime?: number; fee?: bigint } = {}): BuiltLiquidTransaction {
    const fee = options.fee ?? LIQUID_SPEND_FEE;
    const tx = this.library.spend({ ...this.spending(swap, lockup, destination, fee), cooperative: false, lockTime: options.lockTime ?? swap.timeoutBlockHeight });
    return built(tx, lockup, fee);
  }

  // ----- reverse swaps (Lightning → L-BTC) -----

  /** Creates a reverse swap with a fresh preimage and key, checks the answer, and follows its status. */
  async createReverse(invoiceAmount: number): Promise<LiquidReverseSwap> {
    const pair = await this.reversePair();
    const { body, key, preimage } = await requestReverse(this.api, 'BTC', 'L-BTC', pair.hash, invoiceAmount);
    return this.status.follow(await this.checkReverse(body, key, preimage, invoiceAmount, pair));
  }

  /** Everything a wallet verifies in a reverse creation answer before it pays the invoice. */
  async checkReverse(body: any, key: KeyPair, preimage: Uint8Array, invoiceAmount: number, pair: ReversePair): Promise<LiquidReverseSwap> {
    const preimageHash = sha256(preimage);
    await checkReverseInvoice(this.api, body, preimageHash, invoiceAmount, pair);
    const servicePublicKey = requireHexKey(body.refundPublicKey, 'refundPublicKey');
    const timeout = checkTimeout(body.timeoutBlockHeight, await this.rpc.call<number>('getblockcount'));
    const tree = this.library.swapTree('reverse', preimageHash, key.publicKey, servicePublicKey, timeout);
    return {
      kind: 'reverse',
      id: body.id,
      timeoutBlockHeight: timeout,
      servicePublicKey,
      key,
      preimage,
      preimageHash,
      tree,
      ...this.checkOutput(body, tree, body.lockupAddress, key, servicePublicKey),
      invoice: body.invoice,
      invoiceAmount,
      onchainAmount: body.onchainAmount,
    };
  }

  /** The service's lockup in `txHex`, unblinded and checked to hold the promised L-BTC. */
  reverseLockup(swap: LiquidReverseSwap, txHex: string): LiquidLockup {
    return this.serviceLockup(swap, txHex);
  }

  /** The service's lockup of a reverse swap or of a chain swap's service side, checked to hold `onchainAmount`. */
  serviceLockup(swap: LiquidSwapBase & { onchainAmount: number }, txHex: string): LiquidLockup {
    const lockup = this.lockupIn(swap, txHex);
    if (lockup === undefined) throw new Error(`the service's transaction does not pay ${swap.address}`);
    if (lockup.value !== BigInt(swap.onchainAmount)) throw new Error(`the service locked ${lockup.value}, not ${swap.onchainAmount}`);
    return lockup;
  }

  /** Key-path claim: hands the preimage over with the transaction, gets the service's partial signature, broadcasts. */
  cooperativeReverseClaim(swap: LiquidReverseSwap, lockup: LiquidLockup, destination: LiquidDestination, fee = LIQUID_SPEND_FEE): Promise<BuiltLiquidTransaction> {
    return this.claimTogether(swap, lockup, destination, fee, (body) =>
      this.api.expect('POST', `/v2/swap/reverse/${swap.id}/claim`, { preimage: hex.encode(swap.preimage), ...body }, 200),
    );
  }

  /**
   * Key-path claim of a lockup the service made (a reverse swap's, or the service's side of a chain swap): `exchange`
   * sends the unsigned claim to the service the way the swap type does and returns its nonce and partial signature.
   */
  claimTogether(swap: LiquidSwapBase & { preimage: Uint8Array }, lockup: LiquidLockup, destination: LiquidDestination, fee: bigint, exchange: SignatureExchange): Promise<BuiltLiquidTransaction> {
    const tx = this.library.spend({ ...this.spending(swap, lockup, destination, fee), cooperative: true, preimage: swap.preimage });
    return this.signAndBroadcast(swap, lockup, tx, fee, exchange);
  }

  /** Script-path claim through the claim leaf with the preimage; not broadcast. */
  scriptPathReverseClaim(swap: LiquidSwapBase & { preimage: Uint8Array }, lockup: LiquidLockup, destination: LiquidDestination, fee = LIQUID_SPEND_FEE): BuiltLiquidTransaction {
    const tx = this.library.spend({ ...this.spending(swap, lockup, destination, fee), cooperative: false, preimage: swap.preimage });
    return built(tx, lockup, fee);
  }

  // ----- chain -----

  /** POST /v2/chain/L-BTC/transaction: the answer as is. */
  broadcast(txHex: string): Promise<ApiAnswer> {
    return this.api.broadcast('L-BTC', txHex);
  }

  /**
   * The tree Ferry sent is the one built here, and the address is the tree's Taproot output blinded to the public
   * key of the blinding key Ferry gave: the wallet can then unblind (and prove) what it locks or is locked to it.
   */
  checkOutput(body: any, tree: LiquidTree, lockupAddress: unknown, key: KeyPair, servicePublicKey: Uint8Array) {
    checkSerializedTree(body.swapTree, this.library.serializeTree(tree));
    if (typeof body.blindingKey !== 'string' || !/^[0-9a-f]{64}$/.test(body.blindingKey) || !secp256k1.utils.isValidSecretKey(hex.decode(body.blindingKey))) {
      throw new Error(`blindingKey is not a private key: ${body.blindingKey}`);
    }
    const blindingKey = hex.decode(body.blindingKey);
    const { outputScript, internalKey } = this.library.taprootOutput(key, servicePublicKey, tree);
    const unconfidential = address.fromOutputScript(Buffer.from(outputScript), this.network);
    const expected = address.toConfidential(unconfidential, Buffer.from(secp256k1.getPublicKey(blindingKey, true)));
    if (lockupAddress !== expected) {
      throw new Error(`lockup address ${lockupAddress} is not the swap's output blinded to the blinding key given (expected ${expected})`);
    }
    return { outputScript, internalKey, address: expected, blindingKey };
  }

  /** The output of `txHex` paying the swap, unblinded with its blinding key; it must hold L-BTC. */
  private lockupIn(swap: LiquidSwapBase, txHex: string): LiquidLockup | undefined {
    const tx = Transaction.fromHex(txHex);
    const vout = tx.outs.findIndex((out) => equalBytes(out.script, swap.outputScript));
    if (vout < 0) return undefined;
    const prevout = tx.outs[vout];
    const opened = new confidential.Confidential(this.zkp as unknown as Secp256k1Interface).unblindOutputWithKey(prevout, Buffer.from(swap.blindingKey));
    const asset = Buffer.from(opened.asset).reverse().toString('hex');
    if (asset !== this.network.assetHash) throw new Error(`the lockup holds asset ${asset}, not L-BTC`);
    return { txid: tx.getId(), vout, value: BigInt(opened.value), prevout, blindingPrivateKey: swap.blindingKey, hex: txHex };
  }

  private spending(swap: LiquidSwapBase, lockup: LiquidLockup, destination: LiquidDestination, fee: bigint) {
    return { lockup, key: swap.key, tree: swap.tree, internalKey: swap.internalKey, destination, fee };
  }

  /**
   * One MuSig2 round with the service over the key path of the lockup (input 0 of `tx`): our nonce and the
   * unsigned transaction go out, its nonce and partial signature come back, are verified and aggregated; the
   * signature replaces the placeholder and the transaction is broadcast through the API.
   */
  private async signAndBroadcast(
    swap: LiquidSwapBase,
    lockup: LiquidLockup,
    tx: Transaction,
    fee: bigint,
    exchange: SignatureExchange,
  ): Promise<BuiltLiquidTransaction> {
    const round = this.library.musig(swap.key, swap.servicePublicKey, swap.tree, this.library.sighash(tx, [lockup.prevout], 0));
    const answer = await exchange({ pubNonce: hex.encode(round.publicNonce), transaction: tx.toHex(), index: 0 });
    round.sign(hex.decode(answer.pubNonce));
    tx.ins[0].witness = [Buffer.from(round.aggregate(hex.decode(answer.partialSignature)))];
    const result = built(tx, lockup, fee);
    await this.api.broadcastOwn('L-BTC', result.txid, result.hex);
    return result;
  }
}

const built = (tx: Transaction, lockup: LiquidLockup, fee: bigint): BuiltLiquidTransaction => ({
  txid: tx.getId(),
  hex: tx.toHex(),
  value: lockup.value - fee,
  fee,
});
