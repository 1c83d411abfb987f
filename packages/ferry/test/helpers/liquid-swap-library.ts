// The types a Liquid test wallet works with (liquid-swap-wallet.ts), and the one seam between it and its swap
// library: LiquidSwapLibrary, the library calls a Liquid wallet makes — swap trees, the MuSig2 key and signing
// session, claim and refund builders, the Elements sighash — implemented with boltz-core 4.x
// (liquid-boltz-core-4.ts) and with boltz-core 2.x (liquid-boltz-core-2.ts). A chain swap wallet
// (chain-swap-wallet.ts) also makes the same library's Bitcoin calls for the swap's other side: `bitcoin`.
import type { Secp256k1ZKP } from '@vulpemventures/secp256k1-zkp';
import type { Transaction, TxOutput, networks } from 'liquidjs-lib';
import type { KeyPair } from './swap-api.ts';

export interface SwapLeaf {
  version: number;
  output: Uint8Array;
}

/** A swap tree as either library builds it (its own type underneath; tests read the leaves). */
export interface LiquidTree {
  claimLeaf: SwapLeaf;
  refundLeaf: SwapLeaf;
}

/** One MuSig2 signing session of the wallet with the service over a message. */
export interface MusigRound {
  publicNonce: Uint8Array;
  /** Our partial signature, once the service's nonce is known. */
  sign(serviceNonce: Uint8Array): Uint8Array;
  /** After sign: verifies the service's partial signature (throws otherwise) and aggregates both. */
  aggregate(servicePartial: Uint8Array): Uint8Array;
}

/** A spend of a swap lockup to one blinded output: a claim when `preimage` is given, otherwise a refund. */
export interface LiquidSpend {
  lockup: LiquidLockup;
  key: KeyPair;
  tree: LiquidTree;
  /** x-only MuSig2 aggregate of [service, wallet], untweaked. */
  internalKey: Uint8Array;
  destination: LiquidDestination;
  fee: bigint;
  /** Key path with a placeholder signature, to be replaced by the aggregated one. */
  cooperative: boolean;
  preimage?: Uint8Array;
  /** A refund's nLockTime. */
  lockTime?: number;
}

export interface BitcoinKeyPathClaim {
  lockup: { txid: string; vout: number; value: bigint; script: Uint8Array };
  key: KeyPair;
  preimage: Uint8Array;
  /** Output script the claim pays. */
  destination: Uint8Array;
  fee: bigint;
}

export interface UnsignedBitcoinClaim {
  unsignedHex: string;
  /** BIP341 key-path sighash (SIGHASH_DEFAULT) of the lockup's input. */
  sighash: Uint8Array;
  /** The claim with the aggregated signature as its witness. */
  finish(signature: Uint8Array): { txid: string; hex: string };
}

/**
 * The Bitcoin calls of a chain swap wallet on the same library: the Bitcoin side's tree (leaf version 0xc0), its
 * Taproot output and MuSig2 session, tweaked with BIP341's tagged hashes instead of the Elements ones.
 */
export interface BitcoinSwapCalls {
  /** The claim of a Bitcoin lockup through the key path, unsigned (a placeholder signature): to be signed with the service. */
  cooperativeClaim(claim: BitcoinKeyPathClaim): UnsignedBitcoinClaim;
  reverseSwapTree(preimageHash: Uint8Array, claimPublicKey: Uint8Array, refundPublicKey: Uint8Array, timeout: number): LiquidTree;
  taprootOutput(key: KeyPair, servicePublicKey: Uint8Array, tree: LiquidTree): { outputScript: Uint8Array; internalKey: Uint8Array };
  musig(key: KeyPair, servicePublicKey: Uint8Array, tree: LiquidTree, message: Uint8Array): MusigRound;
}

/** The swap library calls a Liquid wallet makes: everything else is the same with boltz-core 4.x and 2.x. */
export interface LiquidSwapLibrary {
  readonly name: string;
  readonly network: networks.Network;
  /** Hands the library secp256k1-zkp (its Liquid module keeps a reference). */
  init(zkp: Secp256k1ZKP): void;
  swapTree(kind: 'submarine' | 'reverse', preimageHash: Uint8Array, claimPublicKey: Uint8Array, refundPublicKey: Uint8Array, timeout: number): LiquidTree;
  serializeTree(tree: LiquidTree): unknown;
  /** MuSig2 of [service, wallet] tweaked with the tree: the P2TR output script and the untweaked internal key. */
  taprootOutput(key: KeyPair, servicePublicKey: Uint8Array, tree: LiquidTree): { outputScript: Uint8Array; internalKey: Uint8Array };
  musig(key: KeyPair, servicePublicKey: Uint8Array, tree: LiquidTree, message: Uint8Array): MusigRound;
  spend(spend: LiquidSpend): Transaction;
  /** Elements' Taproot key-path sighash (SIGHASH_DEFAULT) of input `index`. */
  sighash(tx: Transaction, prevouts: TxOutput[], index: number): Uint8Array;
  readonly bitcoin: BitcoinSwapCalls;
}

export interface LiquidSwapBase {
  id: string;
  timeoutBlockHeight: number;
  /** The service's key: claim key of submarine swaps, refund key of reverse swaps. */
  servicePublicKey: Uint8Array;
  /** The wallet's key: refund key of submarine swaps, claim key of reverse swaps. */
  key: KeyPair;
  preimageHash: Uint8Array;
  tree: LiquidTree;
  outputScript: Uint8Array;
  internalKey: Uint8Array;
  /** The confidential address. */
  address: string;
  /** The private key the lockup is blinded to. */
  blindingKey: Uint8Array;
}

export interface LiquidSubmarineSwap extends LiquidSwapBase {
  kind: 'submarine';
  invoice?: string;
  expectedAmount?: number;
  acceptZeroConf?: boolean;
  bip21?: string;
}

export interface LiquidReverseSwap extends LiquidSwapBase {
  kind: 'reverse';
  preimage: Uint8Array;
  invoice: string;
  invoiceAmount: number;
  onchainAmount: number;
}

/** A swap output on chain, unblinded. */
export interface LiquidLockup {
  txid: string;
  vout: number;
  value: bigint;
  prevout: TxOutput;
  blindingPrivateKey: Uint8Array;
  hex: string;
}

export interface LiquidDestination {
  address: string;
  script: Uint8Array;
  blindingPublicKey: Uint8Array;
}

export interface BuiltLiquidTransaction {
  txid: string;
  hex: string;
  /** Value of its single (blinded) destination output. */
  value: bigint;
  fee: bigint;
}
