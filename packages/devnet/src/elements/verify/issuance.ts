// New asset issuances as elementsd's VerifyAmounts reads them (confidential_validation.cpp): an input's issuance
// adds up to two pseudo-inputs to the balance, the new asset's amount and its reissuance tokens, each with its
// generator in the surjection proofs' domain right after the input's own (input, asset, token, next input, ...).
// The ids come from the issuance's entropy (the spent prevout and the contract hash), as Elements computes them.
import { issuance as liquidIssuance, type Transaction } from 'liquidjs-lib';
import { parseCommitment, type CurvePoint } from './commitment.ts';
import { REGTEST_POLICY_ASSET } from './index.ts';
import { verifyRangeProof } from './proofs.ts';
import { assetIdBytes, moneyRange, readValue, type Field } from './values.ts';
import type { Zkp } from '@ferry/sdk/chains/liquid/zkp.js';

type Input = Transaction['ins'][number];
type Issuance = NonNullable<Input['issuance']>;

const ZERO32 = new Uint8Array(32);
const INT64_SIGN = 1n << 63n;

/** Entropy, asset and token ids of a new issuance, in internal byte order (elementsd displays them reversed). */
export interface IssuanceIds {
  entropy: Uint8Array;
  asset: Uint8Array;
  token: Uint8Array;
}

/** A pseudo-input: the issued amount's commitment and the generator of the asset it creates. */
export interface PseudoInput {
  commitment: CurvePoint;
  generator: Uint8Array;
}

/** A non-null assetBlindingNonce marks a reissuance (the nonce opens the spent token's asset commitment). */
export const isReissuance = (issuance: Issuance): boolean => !Buffer.from(issuance.assetBlindingNonce).equals(ZERO32);

/** CAssetIssuance::IsNull(): neither an asset nor a token amount. */
export const isNullIssuance = (issuance: Issuance): boolean =>
  readValue(issuance.assetAmount)?.kind === 'null' && readValue(issuance.tokenAmount)?.kind === 'null';

/**
 * GenerateAssetEntropy(prevout, contract hash), CalculateAsset, CalculateReissuanceToken: the token id differs
 * when the asset amount is blinded (a null amount counts as explicit).
 */
export function newIssuanceIds(input: Input): IssuanceIds {
  const issuance = input.issuance!;
  const entropy = liquidIssuance.generateEntropy({ txHash: input.hash, vout: input.index }, issuance.assetEntropy);
  const blinded = readValue(issuance.assetAmount)?.kind === 'commitment';
  return {
    entropy: new Uint8Array(entropy),
    asset: new Uint8Array(liquidIssuance.calculateAsset(entropy)),
    token: new Uint8Array(liquidIssuance.calculateReissuanceToken(entropy, blinded)),
  };
}

/**
 * The pseudo-inputs of input `index`'s new issuance (none without one), or why elementsd's VerifyAmounts fails.
 * Reissuances are the caller's to refuse: they need the spent token's asset commitment.
 */
export function issuancePseudoInputs(zkp: Zkp, tx: Transaction, index: number): PseudoInput[] | string {
  const input = tx.ins[index];
  if (input.issuance === undefined) return [];
  const ids = newIssuanceIds(input);
  const parts: [Uint8Array, Uint8Array, Uint8Array, string][] = [
    [input.issuance.assetAmount, ids.asset, input.issuanceRangeProof ?? new Uint8Array(), 'asset amount'],
    [input.issuance.tokenAmount, ids.token, input.inflationRangeProof ?? new Uint8Array(), 'token amount'],
  ];
  const pseudo: PseudoInput[] = [];
  for (const [bytes, asset, proof, what] of parts) {
    const field = readValue(bytes);
    if (field === undefined) return `input ${index} has an invalid issuance ${what}`;
    if (field.kind === 'null') continue;
    // elementsd looks for the range proof in the input's witness: a transaction without witnesses cannot issue.
    if (!tx.hasWitnesses()) return `input ${index} issues in a transaction without witness data`;
    const result = issuedAmount(zkp, field, asset, proof);
    if (typeof result === 'string') return `input ${index}'s issuance ${what} ${result}`;
    pseudo.push(result);
  }
  return pseudo;
}

/** VerifyIssuanceAmount: an explicit amount (positive, no range proof) or a commitment with its range proof. */
function issuedAmount(zkp: Zkp, field: Exclude<Field, { kind: 'null' }>, asset: Uint8Array, proof: Uint8Array): PseudoInput | string {
  const generator = zkp.generator.generate(asset);
  let commitment: Uint8Array;
  if (field.kind === 'explicit') {
    // elementsd reads a CAmount (int64): the MoneyRange bound binds only the policy asset.
    const raw = Buffer.from(field.bytes).readBigUInt64BE(1);
    const amount = raw >= INT64_SIGN ? raw - (INT64_SIGN << 1n) : raw;
    const policy = Buffer.from(asset).equals(Buffer.from(assetIdBytes(REGTEST_POLICY_ASSET)));
    if (amount <= 0n || (policy && !moneyRange(amount))) return 'is not a positive amount';
    if (proof.length > 0) return 'is explicit but carries a range proof';
    commitment = zkp.pedersen.commitment(amount.toString(), generator, ZERO32);
  } else {
    // The range proof commits to an empty script: the minimum it proves must be at least 1.
    if (!verifyRangeProof(zkp, proof, field.bytes, generator, new Uint8Array())) return 'has a range proof that does not verify';
    commitment = field.bytes;
  }
  const point = parseCommitment(commitment, 0x08);
  if (point === undefined) return 'has an invalid commitment';
  return { commitment: point, generator };
}
