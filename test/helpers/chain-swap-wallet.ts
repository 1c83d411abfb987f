// A chain swap wallet (BTC → L-BTC) as a Boltz-compatible client runs it, built from the Bitcoin wallet (funding,
// swap-wallet.ts) and the Liquid wallet (unblinding, claims, liquid-swap-wallet.ts) on one swap library, boltz-core
// 4.x or 2.x. It creates the swap with its own preimage hash, claim key (Liquid) and refund key (Bitcoin), and before
// it funds anything checks both sides: its own lockup on Bitcoin (a reverse-style tree Ferry claims with the preimage
// and the wallet refunds after the timeout, MuSig2 of [Ferry, wallet] tweaked with it) and Ferry's lockup on Liquid
// (the tree the wallet claims with the preimage, blinded to the blinding key given), the amounts and the timeouts.
// Its cooperative claim signs Ferry's key-path claim of the Bitcoin lockup and has Ferry co-sign its own L-BTC claim,
// both in one POST /v2/swap/chain/{id}/claim, as Boltz's clients do.
import { hex } from '@scure/base';
import type { ChainPairBody } from '../../src/protocol/index.ts';
import {
  checkSerializedTree,
  checkTimeout,
  equalBytes,
  newKeyPair,
  newPreimage,
  percentageFee,
  requireHexKey,
  type KeyPair,
} from './swap-api.ts';
import { addressOfScript, type Lockup, type SwapWallet } from './swap-wallet.ts';
import type {
  BuiltLiquidTransaction,
  LiquidDestination,
  LiquidLockup,
  LiquidSwapBase,
  LiquidSwapWallet,
  LiquidTree,
} from './liquid-swap-wallet.ts';
import { LIQUID_SPEND_FEE } from './liquid-swap-wallet.ts';

export type ChainPair = ChainPairBody;

/** The wallet's own lockup on Bitcoin: Ferry claims it with the preimage, the wallet refunds it after the timeout. */
export interface BitcoinUserSide {
  timeoutBlockHeight: number;
  /** Ferry's claim key. */
  servicePublicKey: Uint8Array;
  /** The wallet's refund key. */
  key: KeyPair;
  tree: LiquidTree;
  outputScript: Uint8Array;
  address: string;
  amount: number;
  bip21: string;
}

/** Ferry's lockup on Liquid, which the wallet claims with the preimage: shaped like a reverse swap's. */
export type LiquidServerSide = LiquidSwapBase & { preimage: Uint8Array; onchainAmount: number };

/** What the wallet keeps to itself: its claim key (Liquid), its refund key (Bitcoin) and the preimage. */
export interface ChainSecrets {
  claimKey: KeyPair;
  refundKey: KeyPair;
  preimage: Uint8Array;
  preimageHash: Uint8Array;
}

export interface ChainSwap {
  id: string;
  preimage: Uint8Array;
  preimageHash: Uint8Array;
  lockup: BitcoinUserSide;
  claim: LiquidServerSide;
}

export class ChainSwapWallet {
  constructor(
    readonly bitcoin: SwapWallet,
    readonly liquid: LiquidSwapWallet,
  ) {}

  get status() {
    return this.liquid.status;
  }

  get api() {
    return this.liquid.api;
  }

  async pair(): Promise<ChainPair> {
    return (await this.api.expect('GET', '/v2/swap/chain', undefined, 200)).BTC['L-BTC'];
  }

  /** Creates a BTC → L-BTC swap locking `userLockAmount`, checks the answer, and follows its status. */
  async create(userLockAmount: number): Promise<ChainSwap> {
    const pair = await this.pair();
    const { body, secrets } = await this.request(userLockAmount, pair);
    return this.status.follow(await this.check(body, secrets, userLockAmount, pair));
  }

  /** POST /v2/swap/chain with a fresh preimage, claim key and refund key: the answer, unchecked, and the secrets. */
  async request(userLockAmount: number, pair: ChainPair): Promise<{ body: any; secrets: ChainSecrets }> {
    const secrets = { claimKey: newKeyPair(), refundKey: newKeyPair(), ...newPreimage() };
    const request = {
      from: 'BTC',
      to: 'L-BTC',
      preimageHash: hex.encode(secrets.preimageHash),
      claimPublicKey: hex.encode(secrets.claimKey.publicKey),
      refundPublicKey: hex.encode(secrets.refundKey.publicKey),
      userLockAmount,
      pairHash: pair.hash,
    };
    return { body: await this.api.expect('POST', '/v2/swap/chain', request, 201), secrets };
  }

  /** Everything the wallet verifies in the creation answer before it locks: both outputs, both amounts, both timeouts. */
  async check(
    body: any,
    secrets: ChainSecrets,
    userLockAmount: number,
    pair: ChainPair,
  ): Promise<ChainSwap> {
    if (typeof body.id !== 'string') throw new Error(`no swap id: ${JSON.stringify(body)}`);
    const { lockupDetails, claimDetails } = body;
    const lockup = await this.checkBitcoinSide(lockupDetails, secrets.refundKey, secrets.preimageHash, userLockAmount);
    const claim = await this.checkLiquidSide(body.id, claimDetails, secrets.claimKey, secrets.preimageHash);
    // What Ferry locks: the user's amount at the pair's rate, less the percentage fee and Ferry's miner fees.
    const converted = Math.floor(userLockAmount * pair.rate);
    const expected = converted - percentageFee(converted, pair.fees.percentage) - pair.fees.minerFees.server;
    if (claimDetails.amount !== expected) throw new Error(`Ferry would lock ${claimDetails.amount}, not ${expected}`);
    return { id: body.id, preimage: secrets.preimage, preimageHash: secrets.preimageHash, lockup, claim: { ...claim, preimage: secrets.preimage, onchainAmount: expected } };
  }

  /** The wallet's side: Ferry claims with the preimage, the wallet refunds; the address commits to that tree and both keys. */
  private async checkBitcoinSide(details: any, refundKey: KeyPair, preimageHash: Uint8Array, amount: number): Promise<BitcoinUserSide> {
    const { bitcoin } = this.liquid.library;
    const servicePublicKey = requireHexKey(details.serverPublicKey, 'lockupDetails.serverPublicKey');
    const timeout = checkTimeout(details.timeoutBlockHeight, await this.bitcoin.rpc.getBlockCount());
    const tree = bitcoin.reverseSwapTree(preimageHash, servicePublicKey, refundKey.publicKey, timeout);
    checkSerializedTree(details.swapTree, this.liquid.library.serializeTree(tree));
    const { outputScript } = bitcoin.taprootOutput(refundKey, servicePublicKey, tree);
    const address = addressOfScript(outputScript);
    if (details.lockupAddress !== address) throw new Error(`lockup address ${details.lockupAddress} does not commit to the tree and keys (expected ${address})`);
    if (details.amount !== amount) throw new Error(`the swap asks for ${details.amount}, not ${amount}`);
    if (typeof details.bip21 !== 'string' || !details.bip21.includes(address) || !details.bip21.includes(`amount=${amount / 1e8}`)) {
      throw new Error(`bip21 ${details.bip21} does not ask for ${amount} sat to ${address}`);
    }
    return { timeoutBlockHeight: timeout, servicePublicKey, key: refundKey, tree, outputScript, address, amount, bip21: details.bip21 };
  }

  /** Ferry's side: the wallet claims with the preimage, Ferry refunds; the address is that output blinded to the key given. */
  private async checkLiquidSide(id: string, details: any, claimKey: KeyPair, preimageHash: Uint8Array): Promise<LiquidSwapBase> {
    const servicePublicKey = requireHexKey(details.serverPublicKey, 'claimDetails.serverPublicKey');
    const timeout = checkTimeout(details.timeoutBlockHeight, await this.liquid.rpc.call<number>('getblockcount'));
    const tree = this.liquid.library.swapTree('reverse', preimageHash, claimKey.publicKey, servicePublicKey, timeout);
    const output = this.liquid.checkOutput(details, tree, details.lockupAddress, claimKey, servicePublicKey);
    return { id, timeoutBlockHeight: timeout, servicePublicKey, key: claimKey, preimageHash, tree, ...output };
  }

  /** Locks the swap's amount from the devnet's Bitcoin user wallet. */
  fund(swap: ChainSwap): Promise<Lockup> {
    return this.bitcoin.fund(swap.lockup, swap.lockup.amount);
  }

  /** Ferry's L-BTC lockup in `txHex`, unblinded and checked to hold what the swap promised. */
  serverLockup(swap: ChainSwap, txHex: string): LiquidLockup {
    return this.liquid.serviceLockup(swap.claim, txHex);
  }

  /**
   * The cooperative claim: the wallet signs its half of Ferry's key-path claim of the Bitcoin lockup (GET .../claim),
   * and sends it with the preimage and its own unsigned L-BTC claim; Ferry's partial signature of that comes back and
   * the wallet aggregates and broadcasts it.
   */
  async cooperativeClaim(swap: ChainSwap, lockup: LiquidLockup, destination: LiquidDestination, fee = LIQUID_SPEND_FEE): Promise<BuiltLiquidTransaction> {
    const details = await this.api.expect('GET', `/v2/swap/chain/${swap.id}/claim`, undefined, 200);
    if (!equalBytes(requireHexKey(details.publicKey, 'publicKey'), swap.lockup.servicePublicKey)) {
      throw new Error(`claim key ${details.publicKey} is not the one of the swap's Bitcoin lockup`);
    }
    const { key, servicePublicKey, tree } = swap.lockup;
    const forFerry = this.liquid.library.bitcoin.musig(key, servicePublicKey, tree, hex.decode(details.transactionHash));
    const partialSignature = forFerry.sign(hex.decode(details.pubNonce));
    const signature = { pubNonce: hex.encode(forFerry.publicNonce), partialSignature: hex.encode(partialSignature) };
    return this.liquid.claimTogether(swap.claim, lockup, destination, fee, (toSign) =>
      this.api.expect('POST', `/v2/swap/chain/${swap.id}/claim`, { preimage: hex.encode(swap.preimage), signature, toSign }, 200),
    );
  }

  /** The claim of Ferry's lockup through the claim leaf, without Ferry; not broadcast. */
  scriptPathClaim(swap: ChainSwap, lockup: LiquidLockup, destination: LiquidDestination, fee = LIQUID_SPEND_FEE): BuiltLiquidTransaction {
    return this.liquid.scriptPathReverseClaim(swap.claim, lockup, destination, fee);
  }
}
