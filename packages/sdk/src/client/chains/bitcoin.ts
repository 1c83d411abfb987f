// BTC swaps for the client: Bitcoin's Taproot swap outputs (src/chains/bitcoin/htlc.ts, BIP341's tweak) and their
// claim and refund transactions (src/chains/bitcoin/spends.ts), the builders Ferry's Bitcoin backend uses too.
import { buildSwapOutput } from '../../chains/bitcoin/htlc.ts';
import { findOutput, keyPathDraft, scriptPathClaim, scriptPathRefund } from '../../chains/bitcoin/spends.ts';
import { bitcoinSwapMusig, swapOutputKey } from '../../keys/index.ts';
import { addressOfScript, scriptOfAddress } from '../network.ts';
import { deserializeTree } from '../taproot.ts';
import type { ScriptSpend, SwapChain } from './index.ts';

/** BIP342's tapscript leaf version. */
const TAPSCRIPT_LEAF_VERSION = 0xc0;

const scriptPath = (spend: ScriptSpend) => ({
  output: spend.lockup,
  tree: spend.tree,
  internalKey: spend.internalKey,
  privateKey: spend.privateKey,
  destination: spend.destination.script,
  feeRate: spend.feeRate,
  fee: spend.fee,
});

export const bitcoinChain: SwapChain = {
  currency: 'BTC',
  confidential: false,
  minFeeRate: 1,
  paymentUri: () => ({ scheme: 'bitcoin' }),
  decodeAddress: (address, network) => ({ script: scriptOfAddress(address, network) }),
  swapOutput(terms, network) {
    const { tree, outputScript } = buildSwapOutput(terms);
    return { tree, outputScript, address: addressOfScript(outputScript, network) };
  },
  parseTree: (json) => deserializeTree(json, TAPSCRIPT_LEAF_VERSION),
  outputKey: (servicePublicKey, clientPublicKey, tree) => swapOutputKey(servicePublicKey, clientPublicKey, tree),
  musig: (privateKey, servicePublicKey, clientPublicKey, tree) => bitcoinSwapMusig(privateKey, [servicePublicKey, clientPublicKey], tree),
  findLockup: async (txHex, script) => findOutput(txHex, script),
  keyPathDraft: (spend) => keyPathDraft({ output: spend.lockup, destination: spend.destination.script, feeRate: spend.feeRate, fee: spend.fee }),
  scriptPathClaim: (spend) => scriptPathClaim({ ...scriptPath(spend), preimage: spend.preimage }),
  scriptPathRefund: (spend) => scriptPathRefund({ ...scriptPath(spend), timeoutBlockHeight: spend.timeoutBlockHeight }),
};
