// Each chain's half of the chain swap wallet (chain-swap-wallet.ts): on Bitcoin over the Bitcoin wallet
// (swap-wallet.ts), on Liquid over the Liquid wallet (liquid-swap-wallet.ts), both with the Liquid wallet's swap
// library (boltz-core 4.x or 2.x). A side is either the user's lockup — a reverse-style tree the service claims with
// the preimage and the wallet refunds with its refund key — or the service's lockup, which the wallet claims with its
// claim key and the preimage. Each half rebuilds its side's tree and output from the wallet's own key, checks the
// address, funds the user's lockup, signs the service's key-path claim of it, and claims the service's lockup.
import { hex } from '@scure/base';
import { checkSerializedTree, checkTimeout, requireHexKey, type KeyPair } from './swap-api.ts';
import { addressOfScript, findOutput, scriptOfAddress, type Lockup, type SwapWallet } from './swap-wallet.ts';
import { LIQUID_SPEND_FEE, type LiquidLockup, type LiquidSwapWallet, type LiquidTree, type MusigRound, type SignatureExchange } from './liquid-swap-wallet.ts';

/** One side of a chain swap as the wallet checked it. */
export interface ChainSide {
  id: string;
  chain: 'BTC' | 'L-BTC';
  /** Who claims it with the preimage: the service (the user's lockup) or the wallet (the service's). */
  claimer: 'service' | 'wallet';
  amount: number;
  timeoutBlockHeight: number;
  servicePublicKey: Uint8Array;
  /** The wallet's key here: its refund key on the user's side, its claim key on the service's. */
  key: KeyPair;
  preimageHash: Uint8Array;
  tree: LiquidTree;
  outputScript: Uint8Array;
  internalKey: Uint8Array;
  address: string;
  /** Liquid: the private key the lockup is blinded to. */
  blindingKey?: Uint8Array;
}

/** A lockup on either chain; each half reads its own kind. */
export type SideLockup = Lockup | LiquidLockup;

/** A claim the wallet built, paying its user wallet `value`. */
export interface SideClaim {
  txid: string;
  hex: string;
  value: bigint;
  fee: bigint;
}

export interface SideWallet {
  readonly chain: ChainSide['chain'];
  /** Checks a side's details from the creation answer against the tree the wallet builds itself. */
  check(id: string, claimer: ChainSide['claimer'], details: any, key: KeyPair, preimageHash: Uint8Array): Promise<ChainSide>;
  fund(side: ChainSide): Promise<SideLockup>;
  /** The service's lockup in `txHex`, checked to hold the side's amount. */
  serviceLockup(side: ChainSide, txHex: string): SideLockup;
  /** The wallet's MuSig2 half of the service's key-path claim of the user's lockup (`message` its sighash). */
  signServiceClaim(side: ChainSide, serviceNonce: Uint8Array, message: Uint8Array): { pubNonce: string; partialSignature: string };
  /** Claims the service's lockup through the key path, signed with the service through `exchange`; broadcast. */
  claimTogether(side: ChainSide, lockup: SideLockup, preimage: Uint8Array, exchange: SignatureExchange): Promise<SideClaim>;
}

function claimKeys(claimer: ChainSide['claimer'], key: KeyPair, servicePublicKey: Uint8Array) {
  return claimer === 'wallet' ? [key.publicKey, servicePublicKey] : [servicePublicKey, key.publicKey];
}

/** Our nonce and partial signature in a MuSig2 round the service started (its nonce given). */
const ourHalf = (round: MusigRound, serviceNonce: Uint8Array) => ({
  pubNonce: hex.encode(round.publicNonce),
  partialSignature: hex.encode(round.sign(serviceNonce)),
});

/** The Bitcoin half: its tree with BIP341's hashes, lockups from the devnet's Bitcoin user wallet. */
export class BitcoinSide implements SideWallet {
  readonly chain = 'BTC' as const;

  constructor(
    private readonly wallet: SwapWallet,
    private readonly liquid: LiquidSwapWallet,
  ) {}

  private get calls() {
    return this.liquid.library.bitcoin;
  }

  async check(id: string, claimer: ChainSide['claimer'], details: any, key: KeyPair, preimageHash: Uint8Array): Promise<ChainSide> {
    const servicePublicKey = requireHexKey(details.serverPublicKey, 'serverPublicKey');
    const timeout = checkTimeout(details.timeoutBlockHeight, await this.wallet.rpc.getBlockCount());
    const [claimPublicKey, refundPublicKey] = claimKeys(claimer, key, servicePublicKey);
    const tree = this.calls.reverseSwapTree(preimageHash, claimPublicKey, refundPublicKey, timeout);
    checkSerializedTree(details.swapTree, this.liquid.library.serializeTree(tree));
    const { outputScript, internalKey } = this.calls.taprootOutput(key, servicePublicKey, tree);
    const address = addressOfScript(outputScript);
    if (details.lockupAddress !== address) throw new Error(`lockup address ${details.lockupAddress} does not commit to the tree and keys (expected ${address})`);
    if (claimer === 'service' && (typeof details.bip21 !== 'string' || !details.bip21.includes(address) || !details.bip21.includes(`amount=${details.amount / 1e8}`))) {
      throw new Error(`bip21 ${details.bip21} does not ask for ${details.amount} sat to ${address}`);
    }
    const side = { id, chain: this.chain, claimer, amount: details.amount, timeoutBlockHeight: timeout, servicePublicKey, key, preimageHash };
    return { ...side, tree, outputScript, internalKey, address };
  }

  fund(side: ChainSide): Promise<Lockup> {
    return this.wallet.fund(side, side.amount);
  }

  serviceLockup(side: ChainSide, txHex: string): Lockup {
    const lockup = findOutput(txHex, side.outputScript);
    if (lockup === undefined) throw new Error(`the service's transaction does not pay ${side.address}`);
    if (lockup.value !== BigInt(side.amount)) throw new Error(`the service locked ${lockup.value}, not ${side.amount}`);
    return lockup;
  }

  signServiceClaim(side: ChainSide, serviceNonce: Uint8Array, message: Uint8Array) {
    return ourHalf(this.calls.musig(side.key, side.servicePublicKey, side.tree, message), serviceNonce);
  }

  async claimTogether(side: ChainSide, lockup: SideLockup, preimage: Uint8Array, exchange: SignatureExchange, fee = 1_000n): Promise<SideClaim> {
    if (!('script' in lockup)) throw new Error('not a Bitcoin lockup');
    const destination = scriptOfAddress(await this.wallet.user.getNewAddress());
    const claim = this.calls.cooperativeClaim({ lockup, key: side.key, preimage, destination, fee });
    const round = this.calls.musig(side.key, side.servicePublicKey, side.tree, claim.sighash);
    const answer = await exchange({ pubNonce: hex.encode(round.publicNonce), transaction: claim.unsignedHex, index: 0 });
    round.sign(hex.decode(answer.pubNonce));
    const signed = claim.finish(round.aggregate(hex.decode(answer.partialSignature)));
    await this.wallet.api.broadcastOwn('BTC', signed.txid, signed.hex);
    return { ...signed, value: lockup.value - fee, fee };
  }
}

/** The Liquid half: its tree with the Elements hashes, confidential addresses, lockups from the Elements user wallet. */
export class LiquidSide implements SideWallet {
  readonly chain = 'L-BTC' as const;

  constructor(private readonly wallet: LiquidSwapWallet) {}

  async check(id: string, claimer: ChainSide['claimer'], details: any, key: KeyPair, preimageHash: Uint8Array): Promise<ChainSide> {
    const servicePublicKey = requireHexKey(details.serverPublicKey, 'serverPublicKey');
    const timeout = checkTimeout(details.timeoutBlockHeight, await this.wallet.rpc.call<number>('getblockcount'));
    const [claimPublicKey, refundPublicKey] = claimKeys(claimer, key, servicePublicKey);
    const tree = this.wallet.library.swapTree('reverse', preimageHash, claimPublicKey, refundPublicKey, timeout);
    const output = this.wallet.checkOutput(details, tree, details.lockupAddress, key, servicePublicKey);
    if (claimer === 'service') {
      const asked = typeof details.bip21 === 'string' ? details.bip21 : '';
      if (![output.address, `amount=${details.amount / 1e8}`, `assetid=${this.wallet.network.assetHash}`].every((part) => asked.includes(part))) {
        throw new Error(`bip21 ${details.bip21} does not ask for ${details.amount} sat of L-BTC to ${output.address}`);
      }
    }
    return { id, chain: this.chain, claimer, amount: details.amount, timeoutBlockHeight: timeout, servicePublicKey, key, preimageHash, tree, ...output };
  }

  fund(side: ChainSide): Promise<LiquidLockup> {
    return this.wallet.fund(this.swap(side), side.amount);
  }

  serviceLockup(side: ChainSide, txHex: string): LiquidLockup {
    return this.wallet.serviceLockup({ ...this.swap(side), onchainAmount: side.amount }, txHex);
  }

  signServiceClaim(side: ChainSide, serviceNonce: Uint8Array, message: Uint8Array) {
    return ourHalf(this.wallet.library.musig(side.key, side.servicePublicKey, side.tree, message), serviceNonce);
  }

  async claimTogether(side: ChainSide, lockup: SideLockup, preimage: Uint8Array, exchange: SignatureExchange): Promise<SideClaim> {
    return this.wallet.claimTogether({ ...this.swap(side), preimage }, this.liquidLockup(lockup), await this.wallet.destination(), LIQUID_SPEND_FEE, exchange);
  }

  /** The claim through the claim leaf, without the service; not broadcast. */
  async scriptPathClaim(side: ChainSide, lockup: SideLockup, preimage: Uint8Array): Promise<SideClaim> {
    return this.wallet.scriptPathReverseClaim({ ...this.swap(side), preimage }, this.liquidLockup(lockup), await this.wallet.destination());
  }

  private liquidLockup(lockup: SideLockup): LiquidLockup {
    if (!('prevout' in lockup)) throw new Error('not a Liquid lockup');
    return lockup;
  }

  /** The side as the Liquid wallet's swaps look. */
  private swap(side: ChainSide) {
    if (side.blindingKey === undefined) throw new Error('a Liquid side has a blinding key');
    return { ...side, blindingKey: side.blindingKey };
  }
}
