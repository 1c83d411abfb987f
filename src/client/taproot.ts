// The Taproot swap output from the client's side: MuSig2 of [service key, client key] (service first),
// tweaked with the swap tree; the output script and address that commit to both keys and the tree.
import { hex } from '@scure/base';
import { Musig, Scripts, SwapTreeSerializer, TaprootUtils, compareTrees, reverseSwapTree, swapTree } from 'boltz-core';
import type { Types } from 'boltz-core';
import type { SerializedSwapTree } from './types.ts';

export type SwapTree = Types.SwapTree;

/** The key-aggregation context for our key and the service's, tweaked with the tree. */
export function swapMusig(privateKey: Uint8Array, ourPublicKey: Uint8Array, servicePublicKey: Uint8Array, tree: SwapTree) {
  return TaprootUtils.tweakMusig(Musig.create(privateKey, [servicePublicKey, ourPublicKey]), tree.tree);
}

/** The untweaked aggregate, x-only: the internal key of the output (needed for script-path control blocks). */
export function internalKey(privateKey: Uint8Array, ourPublicKey: Uint8Array, servicePublicKey: Uint8Array): Uint8Array {
  return TaprootUtils.toXOnly(Musig.create(privateKey, [servicePublicKey, ourPublicKey]).internalKey);
}

/** The P2TR output script (OP_1 <tweaked aggregate key>) of a swap. */
export function lockupScript(privateKey: Uint8Array, ourPublicKey: Uint8Array, servicePublicKey: Uint8Array, tree: SwapTree): Uint8Array {
  return Scripts.p2trOutput(swapMusig(privateKey, ourPublicKey, servicePublicKey, tree).aggPubkey);
}

/** The tree a submarine swap must have: the service claims with the preimage, we refund after the timeout. */
export function submarineTree(preimageHash: Uint8Array, servicePublicKey: Uint8Array, ourPublicKey: Uint8Array, timeout: number): SwapTree {
  return swapTree(false, preimageHash, servicePublicKey, ourPublicKey, timeout);
}

/** The tree a reverse swap must have: we claim with the preimage, the service refunds after the timeout. */
export function reverseTree(preimageHash: Uint8Array, ourPublicKey: Uint8Array, servicePublicKey: Uint8Array, timeout: number): SwapTree {
  return reverseSwapTree(false, preimageHash, ourPublicKey, servicePublicKey, timeout);
}

export function serializeTree(tree: SwapTree): SerializedSwapTree {
  return SwapTreeSerializer.serializeSwapTree(tree) as SerializedSwapTree;
}

export function deserializeTree(json: SerializedSwapTree): SwapTree {
  const tree = SwapTreeSerializer.deserializeSwapTree(json) as SwapTree;
  if (!(tree.claimLeaf && tree.refundLeaf)) throw new Error('swap tree lacks a claim or refund leaf');
  return tree;
}

/** Whether the service's serialized tree is exactly the one we built (leaf versions and scripts). */
export function sameTree(theirs: unknown, ours: SwapTree): boolean {
  try {
    const parsed = deserializeTree(theirs as SerializedSwapTree);
    const sameLeaf = (a: Types.TapLeaf, b: Types.TapLeaf) => a.version === b.version && hex.encode(a.output) === hex.encode(b.output);
    return sameLeaf(parsed.claimLeaf, ours.claimLeaf) && sameLeaf(parsed.refundLeaf, ours.refundLeaf) && compareTrees(parsed, ours);
  } catch {
    return false;
  }
}

export const scriptHex = (script: Uint8Array): string => hex.encode(script);
