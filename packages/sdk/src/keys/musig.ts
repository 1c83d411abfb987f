// MuSig2 (BIP327) signing for Taproot swaps, with boltz-core's Musig: keys are always ordered [service, client], the
// aggregate is tweaked by the swap tree (by the chain's backend, whose Taproot decides how), signatures use
// SIGHASH_DEFAULT. A secret nonce signs at most once: a session refuses a second signature, one-shot signing never
// keeps its nonce, and a session kept in storage is marked used there before it signs.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { equalBytes } from '@noble/curves/utils.js';
import { Musig, TaprootUtils, type Types } from 'boltz-core';
import { swapOutputKey, type TaprootSwapKey } from './key-agg.ts';

export class InvalidPartialSignature extends Error {
  constructor() {
    super('invalid partial signature');
  }
}

export class InvalidNonce extends Error {
  constructor(cause: unknown) {
    super('invalid public nonce', { cause });
  }
}

/** MuSig2 of [service, client] before any tweak. */
export type SwapMusig = ReturnType<typeof Musig.create>;

/** Bitcoin's Taproot tweak of [service, client] by the swap tree. */
export function bitcoinSwapMusig(servicePrivateKey: Uint8Array, keys: readonly [Uint8Array, Uint8Array], tree: Types.SwapTree): SwapMusig {
  return TaprootUtils.tweakMusig(Musig.create(servicePrivateKey, [keys[0], keys[1]]), tree.tree);
}

/** A secret and public nonce pair, to keep a signing session across processes. */
export interface StoredNonce {
  public: Uint8Array;
  secret: Uint8Array;
}

/**
 * The swap output's keys and script, after checking that the private key is the service's (as Musig.create
 * did). Callers holding only the public keys use swapOutputKey, which skips that check.
 */
export function taprootSwapKey(
  servicePrivateKey: Uint8Array,
  servicePublicKey: Uint8Array,
  clientPublicKey: Uint8Array,
  tree: Types.SwapTree,
): TaprootSwapKey {
  if (!equalBytes(secp256k1.getPublicKey(servicePrivateKey, true), servicePublicKey)) {
    throw new Error('the private key is not the service public key\'s');
  }
  return swapOutputKey(servicePublicKey, clientPublicKey, tree);
}

/** Throws InvalidNonce unless `nonce` is a BIP327 public nonce: two 33-byte compressed points. */
export function checkPublicNonce(nonce: Uint8Array): void {
  try {
    if (nonce.length !== 66) throw new Error(`a public nonce has 66 bytes, not ${nonce.length}`);
    secp256k1.Point.fromBytes(nonce.subarray(0, 33));
    secp256k1.Point.fromBytes(nonce.subarray(33));
  } catch (error) {
    throw new InvalidNonce(error);
  }
}

export interface PartialSignature {
  pubNonce: Uint8Array;
  partialSignature: Uint8Array;
}

/**
 * Signs `message` for the client, who aggregates (cooperative refunds, reverse key-path claims). The nonce is
 * generated here and thrown away after this one signature.
 */
export function signForClient(
  servicePrivateKey: Uint8Array,
  keys: readonly [Uint8Array, Uint8Array],
  tree: Types.SwapTree,
  message: Uint8Array,
  clientNonce: Uint8Array,
): PartialSignature {
  return signWithMusig(bitcoinSwapMusig(servicePrivateKey, keys, tree), keys[1], message, clientNonce);
}

/** signForClient with a MuSig the chain's backend prepared (keys and tweak). */
export function signWithMusig(musig: SwapMusig, clientPublicKey: Uint8Array, message: Uint8Array, clientNonce: Uint8Array): PartialSignature {
  const withNonce = musig.message(message).generateNonce();
  let aggregated;
  try {
    aggregated = withNonce.aggregateNonces([[clientPublicKey, clientNonce]]);
  } catch (error) {
    throw new InvalidNonce(error);
  }
  const signed = aggregated.initializeSession().signPartial();
  return { pubNonce: withNonce.publicNonce, partialSignature: signed.ourPartialSignature };
}

/**
 * The service's side of a key-path spend it broadcasts itself (the cooperative submarine claim): publish a nonce,
 * then take the client's nonce and partial signature, check it, sign once and aggregate.
 */
export class KeyPathSession {
  private readonly withNonce;
  private readonly clientPublicKey: Uint8Array;
  private used = false;

  constructor(
    servicePrivateKey: Uint8Array,
    keys: readonly [Uint8Array, Uint8Array],
    tree: Types.SwapTree,
    message: Uint8Array,
  );
  constructor(musig: SwapMusig, clientPublicKey: Uint8Array, message: Uint8Array, nonce?: StoredNonce);
  constructor(...args: unknown[]) {
    let musig: SwapMusig;
    let nonce: StoredNonce | undefined;
    if (args.length === 4 && Array.isArray(args[1])) {
      const [privateKey, keys, tree, message] = args as [Uint8Array, [Uint8Array, Uint8Array], Types.SwapTree, Uint8Array];
      musig = bitcoinSwapMusig(privateKey, keys, tree);
      this.clientPublicKey = keys[1];
      this.message = message;
    } else {
      [musig, this.clientPublicKey, this.message, nonce] = args as [SwapMusig, Uint8Array, Uint8Array, StoredNonce | undefined];
    }
    const withMessage = musig.message(this.message);
    // A stored nonce continues a session begun elsewhere; boltz-core only makes fresh ones, so its state is rebuilt.
    this.withNonce =
      nonce === undefined
        ? withMessage.generateNonce()
        : new Musig.MusigWithNonce({ ...(withMessage as unknown as { state: object }).state, nonce } as never);
  }

  readonly message: Uint8Array;

  get pubNonce(): Uint8Array {
    return this.withNonce.publicNonce;
  }

  /** The nonce pair, to store the session; whoever stores it must mark it used before completing it. */
  get nonce(): StoredNonce {
    return (this.withNonce as unknown as { state: { nonce: StoredNonce } }).state.nonce;
  }

  get consumed(): boolean {
    return this.used;
  }

  /** Checks the client's nonce and partial signature without signing: InvalidNonce or InvalidPartialSignature. */
  verify(clientNonce: Uint8Array, clientPartial: Uint8Array): void {
    this.verifiedSession(clientNonce, clientPartial);
  }

  /** The 64-byte Schnorr signature, after verifying the client's partial signature. */
  complete(clientNonce: Uint8Array, clientPartial: Uint8Array): Uint8Array {
    if (this.used) throw new Error('this signing session was used already');
    const session = this.verifiedSession(clientNonce, clientPartial);
    // Marked before signing: whatever happens next, this nonce never signs again.
    this.used = true;
    const signature = session.signPartial().addPartial(this.clientPublicKey, clientPartial).aggregatePartials();
    const outputKey = TaprootUtils.toXOnly(session.aggPubkey);
    if (!schnorr.verify(signature, this.message, outputKey)) throw new Error('aggregated signature does not verify');
    return signature;
  }

  private verifiedSession(clientNonce: Uint8Array, clientPartial: Uint8Array) {
    let session;
    try {
      session = this.withNonce.aggregateNonces([[this.clientPublicKey, clientNonce]]).initializeSession();
    } catch (error) {
      throw new InvalidNonce(error);
    }
    let valid = false;
    try {
      valid = clientPartial.length === 32 && session.verifyPartial(this.clientPublicKey, clientPartial);
    } catch {
      valid = false;
    }
    if (!valid) throw new InvalidPartialSignature();
    return session;
  }
}
