// Our half of the MuSig2 sessions with the service (BIP327, key order [service, client], SIGHASH_DEFAULT, the
// aggregate tweaked the way the swap's chain commits to the tree): getting the service to sign our key-path spends,
// and signing the service's key-path claim.
import { schnorr } from '@noble/curves/secp256k1.js';
import { TaprootUtils } from 'boltz-core';
import { VerificationError } from './errors.ts';
import { fromHex, toHex } from './keys.ts';
import type { SwapChain } from './chains/index.ts';
import type { SwapTree } from './taproot.ts';
import type { PartialSignature } from './types.ts';

export interface SwapSigner {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  servicePublicKey: Uint8Array;
  tree: SwapTree;
  chain: SwapChain;
}

const musigOf = (signer: SwapSigner) => signer.chain.musig(signer.privateKey, signer.servicePublicKey, signer.publicKey, signer.tree);

/**
 * One round for a transaction of ours: our nonce goes out (with whatever `exchange` adds), the service's
 * nonce and partial signature come back and are verified, and the aggregate is checked against the
 * output key before it is returned.
 */
export async function signTogether(
  signer: SwapSigner,
  sighash: Uint8Array,
  exchange: (pubNonce: string) => Promise<PartialSignature | Record<string, never>>,
): Promise<Uint8Array> {
  const musig = musigOf(signer);
  const ours = musig.message(sighash).generateNonce();
  const answer = (await exchange(toHex(ours.publicNonce))) as Partial<PartialSignature>;
  let session;
  let partial: Uint8Array;
  try {
    partial = fromHex(answer.partialSignature, 'partialSignature', 32);
    session = ours.aggregateNonces([[signer.servicePublicKey, fromHex(answer.pubNonce, 'pubNonce', 66)]]).initializeSession();
  } catch (error) {
    throw new VerificationError(`the service's signature answer is unusable: ${(error as Error).message}`);
  }
  if (!session.verifyPartial(signer.servicePublicKey, partial)) throw new VerificationError("the service's partial signature does not verify");
  const signature = session.signPartial().addPartial(signer.servicePublicKey, partial).aggregatePartials();
  if (!schnorr.verify(signature, sighash, TaprootUtils.toXOnly(musig.aggPubkey))) {
    throw new VerificationError('the aggregated signature does not verify for the swap output');
  }
  return signature;
}

/** Our partial signature for the service's key-path claim of a submarine swap output. */
export function signServiceClaim(signer: SwapSigner, transactionHash: Uint8Array, serviceNonce: Uint8Array): PartialSignature {
  const signed = musigOf(signer)
    .message(transactionHash)
    .generateNonce()
    .aggregateNonces([[signer.servicePublicKey, serviceNonce]])
    .initializeSession()
    .signPartial();
  return { pubNonce: toHex(signed.publicNonce), partialSignature: toHex(signed.ourPartialSignature) };
}
