// Building a confidential transaction from the wallet's coins: outputs to blinding keys get an asset commitment,
// a Pedersen value commitment, a range proof rewindable through an ECDH nonce, and a surjection proof; others stay
// explicit; the fee is an explicit output with an empty script. The last blinded output balances the blinders.
// A new asset issuance (issuance.ts) rides on the first coin's input and pays its own outputs.
import {
  AssetHash, Blinder, Creator, Pset, Transaction, Updater, ZKPGenerator, ZKPValidator, confidential,
  type OwnedInput, type TxOutput, type UpdaterOutput,
} from 'liquidjs-lib';
import { toHex } from '../../bitcoin/bytes.ts';
import { addIssuance, blindsAmounts, issuedIds, issuedRecipients, resurjectOutputs, type IssuanceRequest } from './issuance.ts';
import { POLICY_ASSET, type Zkp } from './network.ts';
import type { Unblinded } from '@ferry/sdk/chains/liquid/unblind.js';

export interface Coin {
  txid: string;
  vout: number;
  output: TxOutput; // the spent output as the chain has it (commitments and proofs, or explicit)
  unblinded: Unblinded; // its opening (explicitOutput() for an explicit coin)
}

export interface Recipient {
  script: Uint8Array;
  amount: bigint; // sat
  asset?: string; // default: the policy asset
  blindingKey?: Uint8Array; // 33-byte blinding public key: the output is confidential
}

export interface BuildRequest {
  coins: Coin[];
  recipients: Recipient[];
  fee: bigint; // sat of the policy asset, paid in the explicit fee output
  change?: { script: Uint8Array; blindingKey?: Uint8Array }; // where each asset's surplus goes
  issuance?: IssuanceRequest; // a new asset issued on the first coin's input
}

/** An output of the built transaction with its opening (zero blinders when explicit). */
export interface BuiltOutput extends Unblinded {
  index: number;
  script: Uint8Array;
  blinded: boolean;
  fee: boolean;
}

export interface BuiltPset {
  pset: Pset;
  outputs: BuiltOutput[];
}

const ZERO32 = new Uint8Array(32);
export const isP2tr = (script: Uint8Array): boolean => script.length === 34 && script[0] === 0x51 && script[1] === 0x20;
const assetBytes = (asset: string): Buffer => AssetHash.fromHex(asset).bytesWithoutPrefix;

/** Adds a change output per asset that the recipients and fee leave over; throws when coins do not cover them. */
function withChange(request: BuildRequest): Recipient[] {
  const balance = new Map<string, bigint>();
  const add = (asset: string, amount: bigint) => balance.set(asset, (balance.get(asset) ?? 0n) + amount);
  for (const coin of request.coins) add(coin.unblinded.asset, coin.unblinded.value);
  for (const r of request.recipients) add(r.asset ?? POLICY_ASSET, -r.amount);
  add(POLICY_ASSET, -request.fee);
  const outputs = [...request.recipients];
  for (const [asset, left] of balance) {
    if (left < 0n) throw new Error(`Insufficient funds: short of ${-left} sat of asset ${asset}`);
    if (left === 0n) continue;
    if (!request.change) throw new Error(`No change address for ${left} sat of asset ${asset}`);
    outputs.push({ ...request.change, amount: left, asset });
  }
  return outputs;
}

/**
 * With explicit coins only, a lone blinded output would have to carry all the blinding itself (its commitment
 * would open to v·A, showing the amount): like elementsd's wallet, add a blinded 0-value OP_RETURN output.
 */
function withSecondBlinded(recipients: Recipient[], blindedCoin: boolean): Recipient[] {
  const blinded = recipients.filter((r) => r.blindingKey);
  if (blindedCoin || blinded.length !== 1) return recipients;
  const dummy = { script: Uint8Array.of(0x6a), amount: 0n, asset: blinded[0].asset, blindingKey: blinded[0].blindingKey };
  return [...recipients, dummy];
}

export function buildBlindedPset(zkp: Zkp, request: BuildRequest): BuiltPset {
  const { issuance } = request;
  if (issuance && request.coins.length === 0) throw new Error('An issuance needs an input to issue from');
  const issued = issuance ? issuedRecipients(issuedIds(request.coins[0], issuance), issuance) : [];
  const blindedCoin = request.coins.some((c) => c.unblinded.valueBlinder.some((b) => b !== 0));
  const recipients = withSecondBlinded([...issued, ...withChange(request)], blindedCoin);
  if ((blindedCoin || (issuance && blindsAmounts(issuance))) && !recipients.some((r) => r.blindingKey)) {
    throw new Error('A transaction spending blinded coins or issuing blinded amounts needs at least one blinded output');
  }
  const pset = Creator.newPset();
  new Updater(pset).addInputs(request.coins.map((c) => ({
    txid: c.txid, txIndex: c.vout, witnessUtxo: c.output,
    sighashType: isP2tr(c.output.script) ? Transaction.SIGHASH_DEFAULT : Transaction.SIGHASH_ALL,
  })));
  if (issuance) addIssuance(pset, issuance);
  const updater = new Updater(pset);
  const outputs: UpdaterOutput[] = recipients.map((r) => ({
    asset: r.asset ?? POLICY_ASSET,
    amount: Number(r.amount),
    script: Buffer.from(r.script),
    ...(r.blindingKey ? { blindingPublicKey: Buffer.from(r.blindingKey), blinderIndex: 0 } : {}),
  }));
  outputs.push({ asset: POLICY_ASSET, amount: Number(request.fee) }); // no script: the fee output
  updater.addOutputs(outputs);

  const owned: OwnedInput[] = request.coins.map((c, index) => ({
    index,
    value: c.unblinded.value.toString(),
    asset: assetBytes(c.unblinded.asset),
    valueBlindingFactor: Buffer.from(c.unblinded.valueBlinder),
    assetBlindingFactor: Buffer.from(c.unblinded.assetBlinder),
  }));
  const nonces = new Map<number, Buffer>();
  if (recipients.some((r) => r.blindingKey)) {
    const generator = new ZKPGenerator(zkp, ZKPGenerator.WithOwnedInputs(owned));
    const issuanceBlindingArgs = issuance && blindsAmounts(issuance)
      ? generator.blindIssuances(pset, { 0: Buffer.from(issuance.blindingPrivateKey ?? ZERO32) })
      : undefined;
    const blindingArgs = generator.blindOutputs(pset, Pset.ECCKeysGenerator(zkp.ecc));
    for (const args of blindingArgs) nonces.set(args.index, args.nonce);
    new Blinder(pset, owned, new ZKPValidator(zkp), generator).blindLast({ issuanceBlindingArgs, outputBlindingArgs: blindingArgs });
    if (issuance) resurjectOutputs(zkp, pset, owned, blindingArgs, issuance);
  }
  return { pset, outputs: openOutputs(zkp, pset, nonces) };
}

/** Each output's opening: a blinded one is rewound with its ECDH nonce, which checks the proof as well. */
function openOutputs(zkp: Zkp, pset: Pset, nonces: Map<number, Buffer>): BuiltOutput[] {
  const tx = pset.unsignedTx();
  const ct = new confidential.Confidential(zkp);
  return tx.outs.map((out, index) => {
    const script = new Uint8Array(out.script);
    const nonce = nonces.get(index);
    const fee = out.script.length === 0;
    if (!nonce) {
      const { value, asset } = pset.outputs[index];
      const hex = toHex(Uint8Array.from(asset!).reverse());
      return {
        index, script, blinded: false, fee, value: BigInt(value), asset: hex, valueBlinder: ZERO32, assetBlinder: ZERO32,
      };
    }
    const open = ct.unblindOutputWithNonce(out, nonce);
    return {
      index, script, blinded: true, fee,
      value: BigInt(open.value),
      asset: toHex(Uint8Array.from(open.asset).reverse()),
      valueBlinder: new Uint8Array(open.valueBlindingFactor),
      assetBlinder: new Uint8Array(open.assetBlindingFactor),
    };
  });
}
