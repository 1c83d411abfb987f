// Swap trees from the client's side: serialized as the service sends them, compared leaf by leaf with the tree we
// build ourselves, and built for Bitcoin swaps (the trees a BTC service must answer with). What each chain does with
// a tree — its output key, address, MuSig2 tweak — is its SwapChain's (chains/).
import { hex } from '@scure/base';
import { SwapTreeSerializer, compareTrees, reverseSwapTree, swapTree } from 'boltz-core';
import type { Types } from 'boltz-core';
import type { SerializedSwapTree } from './types.ts';

/** A swap tree; Liquid reverse swaps may carry a covenant claim leaf. */
export type SwapTree = Types.LiquidSwapTree;

/** The tree a submarine swap must have on Bitcoin: the service claims with the preimage, we refund after the timeout. */
export function submarineTree(preimageHash: Uint8Array, servicePublicKey: Uint8Array, ourPublicKey: Uint8Array, timeout: number): SwapTree {
  return swapTree(false, preimageHash, servicePublicKey, ourPublicKey, timeout);
}

/** The tree a reverse swap must have on Bitcoin: we claim with the preimage, the service refunds after the timeout. */
export function reverseTree(preimageHash: Uint8Array, ourPublicKey: Uint8Array, servicePublicKey: Uint8Array, timeout: number): SwapTree {
  return reverseSwapTree(false, preimageHash, ourPublicKey, servicePublicKey, timeout);
}

export function serializeTree(tree: SwapTree): SerializedSwapTree {
  const { claimLeaf, refundLeaf, covenantClaimLeaf } = SwapTreeSerializer.serializeSwapTree(tree) as SerializedSwapTree;
  return { claimLeaf, refundLeaf, ...(covenantClaimLeaf !== undefined && { covenantClaimLeaf }) };
}

/** A serialized tree with both leaves, of the leaf version given. */
export function deserializeTree(json: SerializedSwapTree, leafVersion?: number): SwapTree {
  if (!(json?.claimLeaf && json.refundLeaf)) throw new Error('swap tree lacks a claim or refund leaf');
  const leaves = [['claim', json.claimLeaf], ['refund', json.refundLeaf], ['covenant claim', json.covenantClaimLeaf]] as const;
  for (const [name, leaf] of leaves) {
    if (leaf !== undefined && leafVersion !== undefined && leaf.version !== leafVersion) throw new Error(`the ${name} leaf has version ${leaf.version}, not ${leafVersion}`);
  }
  const { claimLeaf, refundLeaf, covenantClaimLeaf } = json;
  return SwapTreeSerializer.deserializeSwapTree({ claimLeaf, refundLeaf, ...(covenantClaimLeaf !== undefined && { covenantClaimLeaf }) }) as SwapTree;
}

/** Whether the service's serialized tree is exactly the one we built (leaf versions and scripts). */
export function sameTree(theirs: unknown, ours: SwapTree, parse: (json: SerializedSwapTree) => SwapTree): boolean {
  try {
    const parsed = parse(theirs as SerializedSwapTree);
    const sameLeaf = (a: Types.TapLeaf, b: Types.TapLeaf) => a.version === b.version && hex.encode(a.output) === hex.encode(b.output);
    const [theirCovenant, ourCovenant] = [parsed.covenantClaimLeaf, ours.covenantClaimLeaf];
    const sameCovenant = theirCovenant === undefined || ourCovenant === undefined ? theirCovenant === ourCovenant : sameLeaf(theirCovenant, ourCovenant);
    return sameLeaf(parsed.claimLeaf, ours.claimLeaf) && sameLeaf(parsed.refundLeaf, ours.refundLeaf) && sameCovenant && compareTrees(parsed, ours);
  } catch {
    return false;
  }
}
