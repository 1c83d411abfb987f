// L-BTC swaps for the client: Liquid's Taproot swap outputs behind confidential addresses (src/chains/liquid/htlc.ts,
// Elements' tweak), lockups unblinded with the swap's blinding key, and claims and refunds blinded to the
// destination's key (src/chains/liquid/spends.ts), the builders Ferry's Liquid backend uses too; and the refund of a
// legacy (v1, P2WSH) lockup from a refund file.
import { Transaction } from 'liquidjs-lib';
import { LIQUID_LEAF_VERSION, liquidSwapMusig, liquidSwapOutput, liquidSwapOutputKey } from '../../chains/liquid/htlc.ts';
import { decodeAddress, paymentUriScheme, policyAsset } from '../../chains/liquid/network.ts';
import {
  LockupUnblindError,
  MIN_FEE_RATE,
  keyPathDraft,
  legacyRefund,
  scriptPathClaim,
  scriptPathRefund,
  unblindLockup,
  type LiquidSpend,
} from '../../chains/liquid/spends.ts';
import { initLiquid } from '../../chains/liquid/zkp.ts';
import { VerificationError } from '../errors.ts';
import { equalBytes } from '../keys.ts';
import { deserializeTree } from '../taproot.ts';
import type { ScriptSpend, Spend, SwapChain } from './index.ts';

/** The spend as src/chains/liquid/spends.ts takes it. */
function liquidSpend(spend: Spend): LiquidSpend {
  const { lockup, destination } = spend;
  if (lockup.prevout === undefined) throw new Error(`lockup ${lockup.txid}:${lockup.vout} was not read from a Liquid transaction`);
  return {
    lockup: { txid: lockup.txid, vout: lockup.vout, prevout: lockup.prevout, blindingPrivateKey: lockup.blindingPrivateKey },
    destination: { script: destination.script, blindingPublicKey: destination.blindingPublicKey },
    network: spend.network,
    feeRate: spend.feeRate,
    fee: spend.fee,
  };
}

const scriptPath = (spend: ScriptSpend) => ({ ...liquidSpend(spend), tree: spend.tree, internalKey: spend.internalKey, privateKey: spend.privateKey });

export const liquidChain: SwapChain = {
  currency: 'L-BTC',
  confidential: true,
  minFeeRate: MIN_FEE_RATE,
  paymentUri: (network) => ({ scheme: paymentUriScheme(network), assetId: policyAsset(network) }),
  decodeAddress(address, network) {
    try {
      const { script, blindingPublicKey } = decodeAddress(address, network);
      return { script, blindingPublicKey };
    } catch {
      throw new Error(`not a Liquid ${network} address: ${address}`);
    }
  },
  swapOutput(terms, network, blindingPublicKey) {
    if (blindingPublicKey === undefined) throw new Error('a Liquid lockup address needs a blinding key');
    return liquidSwapOutput(terms, blindingPublicKey, network);
  },
  parseTree: (json) => deserializeTree(json, LIQUID_LEAF_VERSION),
  outputKey: liquidSwapOutputKey,
  musig: (privateKey, servicePublicKey, clientPublicKey, tree) => liquidSwapMusig(privateKey, [servicePublicKey, clientPublicKey], tree),
  async findLockup(txHex, script, network, blindingKey) {
    await initLiquid(); // secp256k1-zkp, for unblinding here and for every spend built from the lockup
    const tx = Transaction.fromHex(txHex);
    const vout = tx.outs.findIndex((output) => equalBytes(output.script, script));
    if (vout < 0) return undefined;
    const lockup = { txid: tx.getId(), vout, script, prevout: tx.outs[vout], blindingPrivateKey: blindingKey };
    let opened;
    try {
      opened = unblindLockup(lockup);
    } catch (error) {
      if (error instanceof LockupUnblindError) throw new VerificationError(error.message);
      throw error;
    }
    if (opened.asset !== policyAsset(network)) throw new VerificationError(`lockup ${lockup.txid}:${vout} holds asset ${opened.asset}, not L-BTC`);
    return { ...lockup, value: opened.value };
  },
  keyPathDraft: (spend) => keyPathDraft(liquidSpend(spend)),
  scriptPathClaim: (spend) => scriptPathClaim({ ...scriptPath(spend), preimage: spend.preimage }),
  scriptPathRefund: (spend) => scriptPathRefund({ ...scriptPath(spend), timeoutBlockHeight: spend.timeoutBlockHeight }),
  legacyRefund: (spend) =>
    legacyRefund({ ...liquidSpend(spend), redeemScript: spend.redeemScript, privateKey: spend.privateKey, timeoutBlockHeight: spend.timeoutBlockHeight }),
};
