// Bitcoin's legacy (non-Taproot) swap outputs, for API v1: boltz-core's redeem scripts — swapScript for a
// submarine lockup, nested in P2SH as v1 clients expect of its address, reverseSwapScript (which checks the
// preimage's size) for a reverse lockup, as bare P2WSH — and Ferry's spends of them, through the script alone.
import { hex } from '@scure/base';
import { reverseSwapScript, swapScript } from 'boltz-core';
import type { LegacyScript, SignedTransaction, SwapLockup, SwapOutputTerms, SwapSigner } from '@ferry/sdk/chains/backend.js';
import { legacyClaim, legacyOutputScripts, legacyRefund } from '@ferry/sdk/chains/bitcoin/spends.js';

/** The redeem script of a legacy swap output and the output script paying it. */
export function buildLegacyOutput(terms: SwapOutputTerms): { legacy: LegacyScript; outputScript: Uint8Array } {
  if (terms.kind === 'chainUser') throw new Error('chain swaps have Taproot outputs only');
  const build = terms.kind === 'submarine' ? swapScript : reverseSwapScript;
  const redeemScript = build(terms.preimageHash, terms.claimPublicKey, terms.refundPublicKey, terms.timeoutBlockHeight);
  const outputType = terms.kind === 'submarine' ? 'p2sh-p2wsh' : 'p2wsh';
  return { legacy: { outputType, redeemScript: hex.encode(redeemScript) }, outputScript: legacyOutputScripts(redeemScript)[outputType] };
}

const spent = (lockup: SwapLockup) => ({ txid: lockup.txid, vout: lockup.vout, value: BigInt(lockup.value), script: hex.decode(lockup.script) });

/** Ferry's claim with the preimage: witness <signature> <preimage> <redeem script>. */
export function legacyClaimOf(
  lockup: SwapLockup,
  signer: SwapSigner & { legacy: LegacyScript },
  preimage: Uint8Array,
  destination: Uint8Array,
  feeRate: number,
): SignedTransaction {
  const { outputType, redeemScript } = signer.legacy;
  const built = legacyClaim({
    output: spent(lockup),
    outputType,
    redeemScript: hex.decode(redeemScript),
    privateKey: signer.servicePrivateKey,
    preimage,
    destination,
    feeRate,
  });
  return { txid: built.txid, hex: built.hex };
}

/** Ferry's refund after the timeout: a dummy in the preimage's place, nLockTime = the timeout. */
export function legacyRefundOf(
  lockup: SwapLockup,
  signer: SwapSigner & { legacy: LegacyScript },
  timeoutBlockHeight: number,
  destination: Uint8Array,
  feeRate: number,
): SignedTransaction {
  const { outputType, redeemScript } = signer.legacy;
  const built = legacyRefund({
    output: spent(lockup),
    outputType,
    redeemScript: hex.decode(redeemScript),
    privateKey: signer.servicePrivateKey,
    timeoutBlockHeight,
    destination,
    feeRate,
  });
  return { txid: built.txid, hex: built.hex };
}
