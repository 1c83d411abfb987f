// The asset rescue transaction: a Liquid swap lockup that holds another asset than L-BTC cannot pay its own fee, so
// the service adds one L-BTC coin of its wallet. Input 0 spends the lockup through the key path (MuSig2 of the
// service and the client), input 1 the service's coin; output 0 pays the whole asset to the client's destination,
// output 1 the L-BTC change back to the service (always blinded), output 2 the explicit fee. Facts (input order,
// RBF sequence, the change blinded, only the fee taken from the service's coin) are the reference's.
import { AssetHash, Blinder, Creator, Pset, Transaction, Updater, ZKPGenerator, ZKPValidator, type OwnedInput, type TxOutput } from 'liquidjs-lib';
import type { Network } from '../../keys/index.ts';
import { policyAsset } from './network.ts';
import { clientSpendSighash, MIN_FEE_RATE, type LiquidDestination } from './spends.ts';
import type { Unblinded } from './unblind.ts';
import { zkpLib } from './zkp.ts';
import { unblindOutput, explicitOutput, isConfidentialOutput } from './unblind.ts';

/** An output being spent, with the key that opens it when it is blinded. */
export interface RescueInput {
  txid: string;
  vout: number;
  prevout: TxOutput;
  blindingPrivateKey?: Uint8Array;
}

export interface AssetRescueRequest {
  /** The swap lockup holding the asset (a Taproot output). */
  lockup: RescueInput;
  /** The service's L-BTC coin (P2WPKH) paying the fee. */
  funding: RescueInput;
  destination: LiquidDestination;
  /** The service's change address: blinded, as the reference requires. */
  change: Required<LiquidDestination>;
  feeRate: number;
  network: Network;
}

export interface AssetRescueDraft {
  /** Unsigned: input 0 waits for the aggregated key-path signature, input 1 for the service's wallet. */
  unsignedHex: string;
  /** The Elements Taproot sighash (SIGHASH_DEFAULT) of input 0 over both spent outputs: what MuSig2 signs. */
  sighash: Uint8Array;
  asset: string;
  amount: bigint;
  fee: bigint;
}

export class AssetRescueError extends Error {}

const RBF_SEQUENCE = 0xfffffffd;
const isP2tr = (script: Uint8Array): boolean => script.length === 34 && script[0] === 0x51 && script[1] === 0x20;

function open(input: RescueInput, what: string): Unblinded {
  if (!isConfidentialOutput(input.prevout)) return explicitOutput(input.prevout);
  if (input.blindingPrivateKey === undefined) throw new AssetRescueError(`the ${what} is blinded and no key opens it`);
  try {
    return unblindOutput(zkpLib(), input.prevout, input.blindingPrivateKey);
  } catch {
    throw new AssetRescueError(`the ${what} cannot be unblinded with its blinding key`);
  }
}

function build(request: AssetRescueRequest, asset: Unblinded, funding: Unblinded, fee: bigint): Transaction {
  const { lockup, destination, change, network } = request;
  const pset = Creator.newPset();
  new Updater(pset).addInputs([
    { txid: lockup.txid, txIndex: lockup.vout, witnessUtxo: lockup.prevout, sequence: RBF_SEQUENCE, sighashType: Transaction.SIGHASH_DEFAULT },
    { txid: request.funding.txid, txIndex: request.funding.vout, witnessUtxo: request.funding.prevout, sequence: RBF_SEQUENCE, sighashType: Transaction.SIGHASH_ALL },
  ]);
  new Updater(pset).addOutputs([
    {
      asset: asset.asset,
      amount: Number(asset.value),
      script: Buffer.from(destination.script),
      ...(destination.blindingPublicKey !== undefined && { blindingPublicKey: Buffer.from(destination.blindingPublicKey), blinderIndex: 0 }),
    },
    { asset: policyAsset(network), amount: Number(funding.value - fee), script: Buffer.from(change.script), blindingPublicKey: Buffer.from(change.blindingPublicKey), blinderIndex: 1 },
    { asset: policyAsset(network), amount: Number(fee) },
  ]);
  const owned: OwnedInput[] = [asset, funding].map((opened, index) => ({
    index,
    value: opened.value.toString(),
    asset: AssetHash.fromHex(opened.asset).bytesWithoutPrefix,
    valueBlindingFactor: Buffer.from(opened.valueBlinder),
    assetBlindingFactor: Buffer.from(opened.assetBlinder),
  }));
  const generator = new ZKPGenerator(zkpLib(), ZKPGenerator.WithOwnedInputs(owned));
  const outputBlindingArgs = generator.blindOutputs(pset, Pset.ECCKeysGenerator(zkpLib().ecc));
  new Blinder(pset, owned, new ZKPValidator(zkpLib()), generator).blindLast({ outputBlindingArgs });
  return pset.unsignedTx();
}

/** Discounted vsize once signed: a 64-byte Schnorr signature on input 0, an ECDSA signature and key on input 1. */
function signedVsize(tx: Transaction): number {
  const sized = tx.clone();
  sized.ins[0].witness = [Buffer.alloc(64)];
  sized.ins[1].witness = [Buffer.alloc(72), Buffer.alloc(33)];
  return sized.virtualSize(true);
}

/** Checks the inputs (a Taproot lockup of another asset, an L-BTC coin that covers the fee) and drafts the rescue. */
export function draftAssetRescue(request: AssetRescueRequest): AssetRescueDraft {
  if (!isP2tr(request.lockup.prevout.script)) throw new AssetRescueError('the lockup output is not a Taproot output');
  const asset = open(request.lockup, 'lockup output');
  if (asset.asset === policyAsset(request.network)) throw new AssetRescueError('the lockup holds L-BTC: refund it instead');
  const funding = open(request.funding, "service's fee coin");
  if (funding.asset !== policyAsset(request.network)) throw new AssetRescueError("the service's fee coin is not L-BTC");
  const rate = Math.max(request.feeRate, MIN_FEE_RATE);
  const feeFor = (tx: Transaction) => BigInt(Math.ceil(Math.round(rate * signedVsize(tx) * 1e6) / 1e6));
  // Blinding is random: the second build's size differs from the first by a few bytes at most, so one more round.
  let fee = feeFor(build(request, asset, funding, 1n));
  let tx = build(request, asset, funding, fee);
  if (feeFor(tx) > fee) {
    fee = feeFor(tx) + 1n;
    tx = build(request, asset, funding, fee);
  }
  if (funding.value - fee < 1n) throw new AssetRescueError("the service's fee coin does not cover the fee");
  const unsignedHex = tx.toHex();
  return {
    unsignedHex,
    sighash: clientSpendSighash(unsignedHex, 0, [request.lockup.prevout, request.funding.prevout], request.network),
    asset: asset.asset,
    amount: asset.value,
    fee,
  };
}
