// How elementsd shows what a wallet can open: listunspent's amount, asset, blinder and commitment fields, and
// unblindrawtransaction (outputs the wallet's keys open become explicit, their nonce and proofs are dropped).
import { AssetHash, ElementsValue, Transaction, type TxOutput } from 'liquidjs-lib';
import { toHex } from '../../bitcoin/bytes.ts';
import { isConfidentialOutput, unblindOutput, UnblindError, type Unblinded } from '@ferry/sdk/chains/liquid/unblind.js';
import type { Zkp } from './network.ts';

export interface UnspentBlindingFields {
  amount: number; // BTC, as listunspent's `amount`
  asset: string;
  amountblinder: string; // blinders as uint256 hex: byte-reversed, zeros for an explicit coin
  assetblinder: string;
  amountcommitment?: string; // only for a confidential coin
  assetcommitment?: string;
}

const reversedHex = (bytes: Uint8Array): string => toHex(Uint8Array.from(bytes).reverse());

export function unspentBlindingFields(output: TxOutput, opened: Unblinded): UnspentBlindingFields {
  return {
    amount: Number(opened.value) / 1e8,
    asset: opened.asset,
    amountblinder: reversedHex(opened.valueBlinder),
    assetblinder: reversedHex(opened.assetBlinder),
    ...(isConfidentialOutput(output) ? { amountcommitment: toHex(output.value), assetcommitment: toHex(output.asset) } : {}),
  };
}

/**
 * unblindrawtransaction: each confidential output whose script has a blinding key (`blindingKeyOf`) and opens
 * with it gets its explicit value and asset, a null nonce and no proofs; outputs that do not open stay as they are.
 */
export function unblindTransaction(
  zkp: Zkp,
  tx: Transaction,
  blindingKeyOf: (script: Uint8Array) => Uint8Array | undefined,
): Transaction {
  const copy = tx.clone();
  copy.outs.forEach((out, index) => {
    if (!isConfidentialOutput(out)) return;
    const key = blindingKeyOf(new Uint8Array(out.script));
    if (!key) return;
    let opened: Unblinded;
    try {
      opened = unblindOutput(zkp, out, key);
    } catch (error) {
      if (error instanceof UnblindError) return;
      throw error;
    }
    copy.outs[index] = {
      script: out.script,
      value: ElementsValue.fromNumber(Number(opened.value)).bytes,
      asset: AssetHash.fromHex(opened.asset).bytes,
      nonce: Buffer.of(0),
      rangeProof: Buffer.alloc(0),
      surjectionProof: Buffer.alloc(0),
    };
  });
  return copy;
}
