// Liquid's legacy (non-Taproot) swap outputs, for API v1: boltz-core's redeem scripts (swapScript for a submarine
// lockup, reverseSwapScript for a reverse one) as P2WSH — boltz-core's Liquid builder spends native SegWit only —
// paid to a confidential address, so the lockup is blinded like a Taproot one. The Liquid counterpart of
// src/chains/bitcoin/legacy.ts.
import { hex } from '@scure/base';
import { Scripts, reverseSwapScript, swapScript } from 'boltz-core';
import type { Network } from '@ferry/sdk/keys/index.js';
import type { LegacyScript, SwapOutputTerms } from '@ferry/sdk/chains/backend.js';
import { confidentialAddress } from '@ferry/sdk/chains/liquid/network.js';

/** The redeem script, the P2WSH output script and its confidential address (blinded to `blinding(outputScript)`). */
export function liquidLegacyOutput(
  terms: SwapOutputTerms,
  blinding: (outputScript: Uint8Array) => Uint8Array,
  network: Network,
): { legacy: LegacyScript; outputScript: Uint8Array; address: string } {
  if (terms.kind === 'chainUser') throw new Error('chain swaps have Taproot outputs only');
  const build = terms.kind === 'submarine' ? swapScript : reverseSwapScript;
  const redeemScript = build(terms.preimageHash, terms.claimPublicKey, terms.refundPublicKey, terms.timeoutBlockHeight);
  const outputScript = Scripts.p2wshOutput(redeemScript);
  return {
    legacy: { outputType: 'p2wsh', redeemScript: hex.encode(redeemScript) },
    outputScript,
    address: confidentialAddress(outputScript, blinding(outputScript), network),
  };
}
