// The Liquid wallet's swap library calls with boltz-core 4.x, as a wallet on 4.x writes them: Uint8Array keys,
// the immutable Musig builder (Musig.create → tweak → message → nonce → session), boltz-core's Liquid module
// (init with secp256k1-zkp, reverseSwapTree, TaprootUtils with the Elements tagged hashes, claim and refund
// builders that unblind the lockup and blind the destination output) and the chain-neutral swapTree(isLiquid);
// for a chain swap's Bitcoin side, reverseSwapTree(false) and the Bitcoin TaprootUtils.
import { hex } from '@scure/base';
import { SigHash } from '@scure/btc-signer';
import { Musig, OutputType, Scripts, SwapTreeSerializer, TaprootUtils, constructClaimTransaction, reverseSwapTree, swapTree, type Types } from 'boltz-core';
import type { ClaimDetails } from 'boltz-core';
import * as liquid from 'boltz-core/dist/lib/liquid/index.js';
import type { KeyPair } from './swap-api.ts';
import type { BitcoinKeyPathClaim, LiquidSpend, LiquidSwapLibrary, LiquidTree, MusigRound, UnsignedBitcoinClaim } from './liquid-swap-library.ts';

const network = liquid.Networks.liquidRegtest;

type Tweak = typeof TaprootUtils.tweakMusig;
type SwapMusig = (key: KeyPair, servicePublicKey: Uint8Array, tree: LiquidTree) => ReturnType<Tweak>;

/** MuSig2 of [service, wallet] (service key first) tweaked with the tree, the Elements or the Bitcoin way. */
const tweakedMusig =
  (tweak: Tweak): SwapMusig =>
  (key, servicePublicKey, tree) =>
    tweak(Musig.create(key.privateKey, [servicePublicKey, key.publicKey]), (tree as Types.SwapTree).tree);

const liquidMusig = tweakedMusig(liquid.TaprootUtils.tweakMusig);
const bitcoinMusig = tweakedMusig(TaprootUtils.tweakMusig);

const musigRound =
  (swapMusig: SwapMusig) =>
  (key: KeyPair, servicePublicKey: Uint8Array, tree: LiquidTree, message: Uint8Array): MusigRound => {
    const withNonce = swapMusig(key, servicePublicKey, tree).message(message).generateNonce();
    const signWith = (serviceNonce: Uint8Array) => withNonce.aggregateNonces([[servicePublicKey, serviceNonce]]).initializeSession().signPartial();
    let signed: ReturnType<typeof signWith>;
    return {
      publicNonce: withNonce.publicNonce,
      sign(serviceNonce) {
        signed = signWith(serviceNonce);
        return signed.ourPartialSignature;
      },
      aggregate(servicePartial) {
        if (!signed.verifyPartial(servicePublicKey, servicePartial)) throw new Error("the service's partial signature does not verify");
        return signed.addPartial(servicePublicKey, servicePartial).aggregatePartials();
      },
    };
  };

const taprootOutput = (swapMusig: SwapMusig) => (key: KeyPair, servicePublicKey: Uint8Array, tree: LiquidTree) => ({
  outputScript: Scripts.p2trOutput(swapMusig(key, servicePublicKey, tree).aggPubkey),
  internalKey: TaprootUtils.toXOnly(Musig.create(key.privateKey, [servicePublicKey, key.publicKey]).internalKey),
});

function spend(spend: LiquidSpend): ReturnType<LiquidSwapLibrary['spend']> {
  const { lockup, destination } = spend;
  const utxo = {
    ...lockup.prevout,
    type: OutputType.Taproot as const,
    transactionId: lockup.txid,
    vout: lockup.vout,
    blindingPrivateKey: lockup.blindingPrivateKey,
    privateKey: spend.key.privateKey,
    swapTree: spend.tree as Types.SwapTree,
    internalKey: spend.internalKey,
    cooperative: spend.cooperative,
  };
  const script = Buffer.from(destination.script);
  const blindingKey = Buffer.from(destination.blindingPublicKey);
  if (spend.preimage !== undefined) {
    return liquid.constructClaimTransaction([{ ...utxo, preimage: spend.preimage }], script, spend.fee, true, network, blindingKey);
  }
  return liquid.constructRefundTransaction([utxo], script, spend.lockTime ?? 0, spend.fee, true, network, blindingKey);
}

/** boltz-core's Bitcoin claim builder (a @scure/btc-signer transaction) with the signature left to add. */
function bitcoinCooperativeClaim({ lockup, key, preimage, destination, fee }: BitcoinKeyPathClaim): UnsignedBitcoinClaim {
  const input = { transactionId: lockup.txid, vout: lockup.vout, script: lockup.script, amount: lockup.value, privateKey: key.privateKey, preimage };
  const tx = constructClaimTransaction([{ ...input, type: OutputType.Taproot, cooperative: true } as ClaimDetails], destination, fee, true);
  return {
    unsignedHex: hex.encode(tx.toBytes(true, true)),
    sighash: tx.preimageWitnessV1(0, [lockup.script], SigHash.DEFAULT, [lockup.value]),
    finish(signature) {
      tx.updateInput(0, { finalScriptWitness: [signature] }, true);
      return { txid: tx.id, hex: hex.encode(tx.toBytes(true, true)) };
    },
  };
}

export const boltzCore4: LiquidSwapLibrary = {
  name: 'boltz-core 4.x',
  network,
  init: (zkp) => liquid.init(zkp),
  swapTree: (kind, preimageHash, claimPublicKey, refundPublicKey, timeout) =>
    kind === 'reverse'
      ? liquid.reverseSwapTree(preimageHash, claimPublicKey, refundPublicKey, timeout)
      : swapTree(true, preimageHash, claimPublicKey, refundPublicKey, timeout),
  serializeTree: (tree) => SwapTreeSerializer.serializeSwapTree(tree as Types.SwapTree),
  taprootOutput: taprootOutput(liquidMusig),
  musig: musigRound(liquidMusig),
  spend,
  sighash: (tx, prevouts, index) => liquid.TaprootUtils.hashForWitnessV1(network, prevouts, tx, index),
  bitcoin: {
    cooperativeClaim: bitcoinCooperativeClaim,
    reverseSwapTree: (preimageHash, claimPublicKey, refundPublicKey, timeout) => reverseSwapTree(false, preimageHash, claimPublicKey, refundPublicKey, timeout),
    taprootOutput: taprootOutput(bitcoinMusig),
    musig: musigRound(bitcoinMusig),
  },
};
