// A new asset issuance in a wallet-built PSET, as elementsd's issueasset makes it: the issuance rides on the first
// input, its asset and token outputs are recipients like any other, and blinded outputs get surjection proofs over
// elementsd's domain order (each input, then its issuance's asset and token), which liquidjs-lib does not follow
// (it lists every input first), so those proofs are made again here.
import { randomBytes } from 'node:crypto';
import { confidential, issuance as liquidIssuance, type OutputBlindingArgs, type OwnedInput, type Pset } from 'liquidjs-lib';
import { toHex } from '../../bitcoin/bytes.ts';
import type { Recipient } from './build.ts';
import type { Zkp } from './network.ts';

const ZERO32 = Buffer.alloc(32);

export interface Destination {
  script: Uint8Array;
  blindingKey?: Uint8Array; // 33-byte blinding public key: the output is confidential
}

export interface IssuanceRequest {
  assetAmount: bigint; // sat of the new asset (0: tokens only)
  tokenAmount: bigint; // sat of reissuance tokens (0: none)
  /** Blind the issued amounts (elementsd's `blind`); honoured when an asset amount is issued, see blindsAmounts. */
  blind: boolean;
  /** The issuance range proofs' rewind nonce (blinded amounts only): a key of the wallet's. */
  blindingPrivateKey?: Uint8Array;
  contractHash?: Uint8Array; // 32 bytes as hashed (internal order); default zeros
  assetTo?: Destination; // where the asset goes (needed when assetAmount > 0)
  tokenTo?: Destination; // where the tokens go (needed when tokenAmount > 0)
}

/** What elementsd's issueasset answers, ids as displayed (byte-reversed). */
export interface IssuedIds {
  entropy: string;
  asset: string;
  token: string;
}

const display = (bytes: Uint8Array): string => toHex(Uint8Array.from(bytes).reverse());

/**
 * Only a blinded asset amount is a commitment: the token id follows it (CalculateReissuanceToken), so a
 * tokens-only issuance stays explicit here, where liquidjs-lib would blind its tokens under the other id.
 */
export const blindsAmounts = (request: IssuanceRequest): boolean => request.blind && request.assetAmount > 0n;

function entropyOf(outpoint: { txid: string; vout: number }, request: IssuanceRequest): Buffer {
  const txHash = Buffer.from(outpoint.txid, 'hex').reverse();
  return liquidIssuance.generateEntropy({ txHash, vout: outpoint.vout }, Buffer.from(request.contractHash ?? ZERO32));
}

/** The ids an issuance on an input spending `outpoint` creates. */
export function issuedIds(outpoint: { txid: string; vout: number }, request: IssuanceRequest): IssuedIds {
  const entropy = entropyOf(outpoint, request);
  return {
    entropy: display(entropy),
    asset: display(liquidIssuance.calculateAsset(entropy)),
    token: display(liquidIssuance.calculateReissuanceToken(entropy, blindsAmounts(request))),
  };
}

/** The assets the issuance creates, in elementsd's pseudo-input order: the asset, then its tokens. */
function issuedAmounts(ids: IssuedIds, request: IssuanceRequest): { asset: string; amount: bigint; to?: Destination }[] {
  return [
    { asset: ids.asset, amount: request.assetAmount, to: request.assetTo },
    { asset: ids.token, amount: request.tokenAmount, to: request.tokenTo },
  ].filter((issued) => issued.amount > 0n);
}

/** The issuance's outputs as recipients, each paid from the amount the input creates. */
export const issuedRecipients = (ids: IssuedIds, request: IssuanceRequest): Recipient[] =>
  issuedAmounts(ids, request).map(({ asset, amount, to }) => {
    if (!to) throw new Error(`No destination for the ${amount} sat issued of ${asset}`);
    return { ...to, amount, asset };
  });

/** Puts the new issuance on the PSET's input 0 (elementsd's wallet issues from its first input too). */
export function addIssuance(pset: Pset, request: IssuanceRequest): void {
  const input = pset.inputs[0];
  input.issuanceValue = Number(request.assetAmount);
  // liquidjs-lib's unsignedTx (which its sighashes read) would write an unissued amount as explicit 0, where its
  // Extractor and elementsd write it null: a null "commitment" makes both write null.
  if (request.assetAmount === 0n) input.issuanceValueCommitment = Buffer.of(0x00);
  input.issuanceInflationKeys = Number(request.tokenAmount);
  input.issuanceAssetEntropy = Buffer.from(request.contractHash ?? ZERO32);
  input.issuanceBlindingNonce = ZERO32;
  input.blindedIssuance = blindsAmounts(request);
}

/** Surjection proofs of the blinded outputs over elementsd's domain: input 0, its issued asset and token, the rest. */
export function resurjectOutputs(zkp: Zkp, pset: Pset, owned: OwnedInput[], blinded: OutputBlindingArgs[], request: IssuanceRequest): void {
  const ids = issuedIds({ txid: display(pset.inputs[0].previousTxid), vout: pset.inputs[0].previousTxIndex }, request);
  const assets: Buffer[] = [];
  const blinders: Buffer[] = [];
  owned.forEach((input, index) => {
    assets.push(Buffer.from(input.asset));
    blinders.push(Buffer.from(input.assetBlindingFactor));
    if (index !== 0) return;
    for (const { asset } of issuedAmounts(ids, request)) {
      assets.push(Buffer.from(asset, 'hex').reverse());
      blinders.push(ZERO32);
    }
  });
  const ct = new confidential.Confidential(zkp);
  for (const args of blinded) {
    const output = pset.outputs[args.index];
    output.assetSurjectionProof = ct.surjectionProof(output.asset!, args.assetBlinder, assets, blinders, randomBytes(32));
  }
}
