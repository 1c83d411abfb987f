// A chain swap wallet (BTC → L-BTC and L-BTC → BTC) as a Boltz-compatible client runs it, on one swap library,
// boltz-core 4.x or 2.x, with each chain's half in chain-swap-sides.ts. It creates the swap with its own preimage
// hash, claim key and refund key, and before it funds anything checks both sides: its own lockup (a reverse-style
// tree the service claims with the preimage and the wallet refunds after the timeout) and the service's lockup (the
// tree the wallet claims with the preimage), each address committing to its tree and MuSig2 of [service, wallet] —
// blinded to the blinding key given on Liquid — and the amounts. Its cooperative claim signs the service's key-path
// claim of the wallet's lockup and has the service co-sign the wallet's claim of its lockup, both in one
// POST /v2/swap/chain/{id}/claim, as Boltz's clients do.
import { hex } from '@scure/base';
import type { ChainPairBody } from '@ferry/sdk/protocol/index.js';
import { equalBytes, newKeyPair, newPreimage, percentageFee, requireHexKey, type KeyPair, type StatusSocket } from './swap-api.ts';
import type { SwapWallet } from './swap-wallet.ts';
import type { LiquidSwapWallet } from './liquid-swap-wallet.ts';
import { BitcoinSide, LiquidSide, type ChainSide, type SideClaim, type SideLockup, type SideWallet } from './chain-swap-sides.ts';

export type ChainPair = ChainPairBody;
export type { ChainSide, SideClaim, SideLockup } from './chain-swap-sides.ts';

type Symbol = ChainSide['chain'];

/** What the wallet keeps to itself: its claim key (the `to` chain), its refund key (the `from` chain) and the preimage. */
export interface ChainSecrets {
  claimKey: KeyPair;
  refundKey: KeyPair;
  preimage: Uint8Array;
  preimageHash: Uint8Array;
}

export interface ChainSwap {
  id: string;
  preimage: Uint8Array;
  /** The wallet's lockup on the `from` chain. */
  lockup: ChainSide;
  /** The service's lockup on the `to` chain, which the wallet claims. */
  claim: ChainSide;
}

export class ChainSwapWallet {
  private readonly sides: Record<Symbol, SideWallet>;
  readonly liquidSide: LiquidSide;

  constructor(
    readonly bitcoin: SwapWallet,
    readonly liquid: LiquidSwapWallet,
  ) {
    this.liquidSide = new LiquidSide(liquid);
    this.sides = { BTC: new BitcoinSide(bitcoin, liquid), 'L-BTC': this.liquidSide };
  }

  get status(): StatusSocket {
    return this.liquid.status;
  }

  get api() {
    return this.liquid.api;
  }

  async pair(from: Symbol, to: Symbol): Promise<ChainPair> {
    return (await this.api.expect('GET', '/v2/swap/chain', undefined, 200))[from][to];
  }

  /** Creates a swap from `from` to `to` locking `userLockAmount`, checks the answer, and follows its status. */
  async create(from: Symbol, to: Symbol, userLockAmount: number): Promise<ChainSwap> {
    const pair = await this.pair(from, to);
    const { body, secrets } = await this.request(from, to, userLockAmount, pair);
    return this.status.follow(await this.check(from, to, body, secrets, userLockAmount, pair));
  }

  /** POST /v2/swap/chain with a fresh preimage, claim key and refund key: the answer, unchecked, and the secrets. */
  async request(from: Symbol, to: Symbol, userLockAmount: number, pair: ChainPair): Promise<{ body: any; secrets: ChainSecrets }> {
    const secrets = { claimKey: newKeyPair(), refundKey: newKeyPair(), ...newPreimage() };
    const request = {
      from,
      to,
      preimageHash: hex.encode(secrets.preimageHash),
      claimPublicKey: hex.encode(secrets.claimKey.publicKey),
      refundPublicKey: hex.encode(secrets.refundKey.publicKey),
      userLockAmount,
      pairHash: pair.hash,
    };
    return { body: await this.api.expect('POST', '/v2/swap/chain', request, 201), secrets };
  }

  /** Everything the wallet verifies in the creation answer before it locks: both outputs and both amounts. */
  async check(from: Symbol, to: Symbol, body: any, secrets: ChainSecrets, userLockAmount: number, pair: ChainPair): Promise<ChainSwap> {
    if (typeof body.id !== 'string') throw new Error(`no swap id: ${JSON.stringify(body)}`);
    if (body.lockupDetails?.amount !== userLockAmount) throw new Error(`the swap asks for ${body.lockupDetails?.amount}, not ${userLockAmount}`);
    const lockup = await this.sides[from].check(body.id, 'service', body.lockupDetails, secrets.refundKey, secrets.preimageHash);
    const claim = await this.sides[to].check(body.id, 'wallet', body.claimDetails, secrets.claimKey, secrets.preimageHash);
    // What the service locks: the user's amount at the pair's rate, less the percentage fee and its miner fees.
    const converted = Math.floor(userLockAmount * pair.rate);
    const expected = converted - percentageFee(converted, pair.fees.percentage) - pair.fees.minerFees.server;
    if (claim.amount !== expected) throw new Error(`the service would lock ${claim.amount}, not ${expected}`);
    return { id: body.id, preimage: secrets.preimage, lockup, claim };
  }

  /** Locks the swap's amount from the devnet's user wallet of the `from` chain. */
  fund(swap: ChainSwap): Promise<SideLockup> {
    return this.sides[swap.lockup.chain].fund(swap.lockup);
  }

  /** The service's lockup in `txHex`, checked (unblinded on Liquid) to hold what the swap promised. */
  serviceLockup(swap: ChainSwap, txHex: string): SideLockup {
    return this.sides[swap.claim.chain].serviceLockup(swap.claim, txHex);
  }

  /**
   * The cooperative claim: the wallet signs its half of the service's key-path claim of the wallet's lockup
   * (GET .../claim), and sends it with the preimage and its own unsigned claim of the service's lockup; the service's
   * partial signature of that comes back, and the wallet aggregates it and broadcasts the claim.
   */
  async cooperativeClaim(swap: ChainSwap, lockup: SideLockup): Promise<SideClaim> {
    const details = await this.api.expect('GET', `/v2/swap/chain/${swap.id}/claim`, undefined, 200);
    if (!equalBytes(requireHexKey(details.publicKey, 'publicKey'), swap.lockup.servicePublicKey)) {
      throw new Error(`claim key ${details.publicKey} is not the one of the wallet's lockup`);
    }
    const signature = this.sides[swap.lockup.chain].signServiceClaim(swap.lockup, hex.decode(details.pubNonce), hex.decode(details.transactionHash));
    return this.sides[swap.claim.chain].claimTogether(swap.claim, lockup, swap.preimage, (toSign) =>
      this.api.expect('POST', `/v2/swap/chain/${swap.id}/claim`, { preimage: hex.encode(swap.preimage), signature, toSign }, 200),
    );
  }
}
