// The Liquid wallet's swap library calls with boltz-core 2.x (the devDependency alias boltz-core-v2), as a wallet
// on 2.x writes them: Buffers and ECPair keys (ecpair over secp256k1-zkp), the stateful Musig class over
// secp256k1-zkp's MuSig2 with a random session id (tweaked in place by TaprootUtils.tweakMusig, which returns the
// x-only output key), swap trees of Buffers, and the Liquid claim and refund builders taking `txHash` (the txid
// in internal byte order), `keys` and a fee in a number. A chain swap's Bitcoin side: reverseSwapTree(false) and the
// Bitcoin TaprootUtils.tweakMusig (BIP341's tagged hashes) on the same Musig class.
import { randomBytes } from 'node:crypto';
import type { Secp256k1ZKP } from '@vulpemventures/secp256k1-zkp';
import { Musig, OutputType, Scripts, SwapTreeSerializer, TaprootUtils, constructClaimTransaction, reverseSwapTree, swapTree, type Types } from 'boltz-core-v2';
import * as liquid from 'boltz-core-v2/dist/lib/liquid/index.js';
import { ECPairFactory, type ECPairAPI } from 'ecpair';
import type { KeyPair } from './swap-api.ts';
import type { BitcoinKeyPathClaim, LiquidSpend, LiquidSwapLibrary, LiquidTree, MusigRound, UnsignedBitcoinClaim } from './liquid-swap-library.ts';

const network = liquid.Networks.liquidRegtest;
let zkp: Secp256k1ZKP;
let ECPair: ECPairAPI;

const buffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes);
const v2Tree = (tree: LiquidTree) => tree as unknown as Types.SwapTree;

type Tweak = typeof TaprootUtils.tweakMusig;
type SwapMusig = (key: KeyPair, servicePublicKey: Uint8Array, tree: LiquidTree) => { musig: Musig; outputKey: Buffer };

/** A new Musig of [service, wallet] (service key first), tweaked with the tree the Elements or the Bitcoin way; the x-only output key. */
const tweakedMusig =
  (tweak: Tweak): SwapMusig =>
  (key, servicePublicKey, tree) => {
    const musig = new Musig(zkp, ECPair.fromPrivateKey(buffer(key.privateKey)), randomBytes(32), [buffer(servicePublicKey), buffer(key.publicKey)]);
    return { musig, outputKey: tweak(musig, v2Tree(tree).tree) };
  };

const liquidMusig = tweakedMusig(liquid.TaprootUtils.tweakMusig);
const bitcoinMusig = tweakedMusig(TaprootUtils.tweakMusig);

const musigRound =
  (swapMusig: SwapMusig) =>
  (key: KeyPair, servicePublicKey: Uint8Array, tree: LiquidTree, message: Uint8Array): MusigRound => {
    const { musig } = swapMusig(key, servicePublicKey, tree);
    const service = buffer(servicePublicKey);
    return {
      publicNonce: musig.getPublicNonce(),
      sign(serviceNonce) {
        musig.aggregateNonces([[service, serviceNonce]]);
        musig.initializeSession(buffer(message));
        return musig.signPartial();
      },
      aggregate(servicePartial) {
        if (!musig.verifyPartial(service, servicePartial)) throw new Error("the service's partial signature does not verify");
        musig.addPartial(service, servicePartial);
        return musig.aggregatePartials();
      },
    };
  };

const taprootOutput = (swapMusig: SwapMusig) => (key: KeyPair, servicePublicKey: Uint8Array, tree: LiquidTree) => {
  const { musig, outputKey } = swapMusig(key, servicePublicKey, tree);
  return { outputScript: Scripts.p2trOutput(outputKey), internalKey: musig.getAggregatedPublicKey() };
};

function spend(spend: LiquidSpend): ReturnType<LiquidSwapLibrary['spend']> {
  const { lockup, destination } = spend;
  const utxo = {
    ...lockup.prevout,
    type: OutputType.Taproot,
    txHash: Buffer.from(lockup.txid, 'hex').reverse(),
    vout: lockup.vout,
    blindingPrivateKey: buffer(lockup.blindingPrivateKey),
    keys: ECPair.fromPrivateKey(buffer(spend.key.privateKey)),
    swapTree: v2Tree(spend.tree),
    internalKey: buffer(spend.internalKey),
    cooperative: spend.cooperative,
  };
  const script = buffer(destination.script);
  const blindingKey = buffer(destination.blindingPublicKey);
  const fee = Number(spend.fee);
  if (spend.preimage !== undefined) {
    return liquid.constructClaimTransaction([{ ...utxo, preimage: buffer(spend.preimage) }], script, fee, true, network, blindingKey);
  }
  return liquid.constructRefundTransaction([utxo], script, spend.lockTime ?? 0, fee, true, network, blindingKey);
}

/** boltz-core 2.x's Bitcoin claim builder (a bitcoinjs-lib transaction) with the signature left to add. */
function bitcoinCooperativeClaim({ lockup, key, preimage, destination, fee }: BitcoinKeyPathClaim): UnsignedBitcoinClaim {
  const utxo = {
    txHash: Buffer.from(lockup.txid, 'hex').reverse(),
    vout: lockup.vout,
    script: buffer(lockup.script),
    value: Number(lockup.value),
    type: OutputType.Taproot,
    keys: ECPair.fromPrivateKey(buffer(key.privateKey)),
    preimage: buffer(preimage),
    cooperative: true,
  };
  const tx = constructClaimTransaction([utxo], buffer(destination), Number(fee), true);
  return {
    unsignedHex: tx.toHex(),
    sighash: TaprootUtils.hashForWitnessV1([utxo], tx, 0),
    finish(signature) {
      tx.setWitness(0, [buffer(signature)]);
      return { txid: tx.getId(), hex: tx.toHex() };
    },
  };
}

export const boltzCore2: LiquidSwapLibrary = {
  name: 'boltz-core 2.x',
  network,
  init(loaded) {
    zkp = loaded;
    ECPair = ECPairFactory(loaded.ecc);
    liquid.init(loaded);
  },
  swapTree: (kind, preimageHash, claimPublicKey, refundPublicKey, timeout) => {
    const args = [buffer(preimageHash), buffer(claimPublicKey), buffer(refundPublicKey), timeout] as const;
    return kind === 'reverse' ? liquid.reverseSwapTree(...args) : swapTree(true, ...args);
  },
  serializeTree: (tree) => SwapTreeSerializer.serializeSwapTree(v2Tree(tree)),
  taprootOutput: taprootOutput(liquidMusig),
  musig: musigRound(liquidMusig),
  spend,
  sighash: (tx, prevouts, index) => liquid.TaprootUtils.hashForWitnessV1(network, prevouts, tx, index),
  bitcoin: {
    cooperativeClaim: bitcoinCooperativeClaim,
    reverseSwapTree: (preimageHash, claimPublicKey, refundPublicKey, timeout) =>
      reverseSwapTree(false, buffer(preimageHash), buffer(claimPublicKey), buffer(refundPublicKey), timeout),
    taprootOutput: taprootOutput(bitcoinMusig),
    musig: musigRound(bitcoinMusig),
  },
};
