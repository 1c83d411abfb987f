// Liquid's Taproot swap outputs: boltz-core's Liquid swap trees (leaf version 0xc4) behind the MuSig2 aggregate of
// [service, client] tweaked the Elements way ("TapLeaf/elements", "TapBranch/elements", "TapTweak/elements"), paid
// to a confidential address so the lockup is blinded. The Liquid counterpart of src/chains/bitcoin/htlc.ts.
import { Musig, SwapTreeSerializer, swapTree, type Types } from 'boltz-core';
import * as liquid from 'boltz-core/dist/lib/liquid/index.js';
import { serviceSwapOutputKey, swapOutputKey, type Network, type SwapMusig, type TaprootCommitment, type TaprootSwapKey } from '../../keys/index.ts';
import type { SwapTreeJson } from '../../protocol/wire.ts';
import { swapClientKey, type SwapOutputTerms } from '../backend.ts';
import { confidentialAddress } from './network.ts';

/** The leaf version of Elements' tapscript. */
export const LIQUID_LEAF_VERSION = 0xc4;

export type LiquidSwapTree = Types.LiquidSwapTree;

/** Elements' Taproot: tagged hashes "TapLeaf/elements", "TapBranch/elements" and "TapTweak/elements". */
export const ELEMENTS_TAPROOT: TaprootCommitment = {
  merkleRoot: (tree) => new Uint8Array(liquid.TaprootUtils.toHashTree(tree).hash),
  tweakTag: 'TapTweak/elements',
};

export interface LiquidSwapOutput {
  tree: LiquidSwapTree;
  /** P2TR: OP_1 <the tweaked MuSig2 aggregate of [service, client]>. */
  outputScript: Uint8Array;
  /** The confidential address: outputs paid to it are blinded to the blinding public key given. */
  address: string;
}

/** The keys of a Liquid swap output for [service, client] and the tree (the internal key signs script-path spends). */
export const liquidSwapOutputKey = (servicePublicKey: Uint8Array, clientPublicKey: Uint8Array, tree: LiquidSwapTree): TaprootSwapKey =>
  swapOutputKey(servicePublicKey, clientPublicKey, tree, ELEMENTS_TAPROOT);

/**
 * The swap output for these terms, its address blinded to `blinding`: a blinding public key, or how to derive it
 * from the output script (Ferry's lockups: `(script) => blindingKeyForScript(master, script).publicKey`).
 */
export function liquidSwapOutput(
  terms: SwapOutputTerms,
  blinding: Uint8Array | ((outputScript: Uint8Array) => Uint8Array),
  network: Network,
): LiquidSwapOutput {
  const args = [terms.preimageHash, terms.claimPublicKey, terms.refundPublicKey, terms.timeoutBlockHeight] as const;
  const covenant = terms.kind === 'reverse' ? terms.claimCovenant : undefined;
  const features = covenant === undefined ? undefined : [{ type: liquid.Feature.ClaimCovenant, ...covenant, outputScript: Buffer.from(covenant.outputScript) }];
  const tree = terms.kind === 'submarine' ? swapTree(true, ...args) : liquid.reverseSwapTree(...args, features);
  const { outputScript } = terms.servicePrivateKey === undefined
    ? liquidSwapOutputKey(terms.servicePublicKey, swapClientKey(terms), tree)
    : serviceSwapOutputKey(terms.servicePrivateKey, terms.servicePublicKey, swapClientKey(terms), tree, ELEMENTS_TAPROOT);
  const blindingPublicKey = typeof blinding === 'function' ? blinding(outputScript) : blinding;
  return { tree, outputScript, address: confidentialAddress(outputScript, blindingPublicKey, network) };
}

export function serializeLiquidTree(tree: LiquidSwapTree): SwapTreeJson {
  const { claimLeaf, refundLeaf, covenantClaimLeaf } = SwapTreeSerializer.serializeSwapTree(tree) as SwapTreeJson;
  return { claimLeaf, refundLeaf, ...(covenantClaimLeaf !== undefined && { covenantClaimLeaf }) };
}

/** The tree of a SwapTreeJson; throws unless every leaf (claim, refund, covenant claim) is Elements tapscript (196). */
export function deserializeLiquidTree(json: SwapTreeJson): LiquidSwapTree {
  const leaves = [['claim', json.claimLeaf], ['refund', json.refundLeaf], ['covenant claim', json.covenantClaimLeaf]] as const;
  for (const [name, leaf] of leaves) {
    if (leaf !== undefined && leaf.version !== LIQUID_LEAF_VERSION) throw new Error(`the ${name} leaf has version ${leaf.version}, not Liquid's ${LIQUID_LEAF_VERSION}`);
  }
  const { claimLeaf, refundLeaf, covenantClaimLeaf } = json;
  return SwapTreeSerializer.deserializeSwapTree({ claimLeaf, refundLeaf, ...(covenantClaimLeaf !== undefined && { covenantClaimLeaf }) }) as LiquidSwapTree;
}

/** MuSig2 of [service, client] tweaked the way Elements' Taproot commits to the swap tree. */
export function liquidSwapMusig(servicePrivateKey: Uint8Array, keys: readonly [Uint8Array, Uint8Array], tree: LiquidSwapTree): SwapMusig {
  return liquid.TaprootUtils.tweakMusig(Musig.create(servicePrivateKey, [keys[0], keys[1]]), tree.tree);
}
