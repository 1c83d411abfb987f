// Elements transactions as the node keeps them: liquidjs-lib's parse plus txid, wtxid, sizes, and the
// output fields the node reads (explicit value/asset, fee outputs, the verifier's prevout view).
import { Transaction, type TxOutput } from 'liquidjs-lib';
import { REGTEST_POLICY_ASSET, type ElementsPrevout } from './verify/index.ts';

export interface ElementsTx {
  tx: Transaction;
  txid: string;
  wtxid: string;
  raw: Buffer;
  size: number;
  /** Weight and vsize as elementsd's policy counts them with discounted confidential outputs. */
  weight: number;
  vsize: number;
  /** Full (undiscounted) weight, for block limits and RPC `weight`. */
  fullWeight: number;
}

export function wrapTx(tx: Transaction, raw = tx.toBuffer()): ElementsTx {
  return {
    tx,
    txid: tx.getId(),
    wtxid: Buffer.from(tx.getHash(true)).reverse().toString('hex'),
    raw,
    size: raw.length,
    weight: tx.weight(true),
    vsize: tx.virtualSize(true),
    fullWeight: tx.weight(false),
  };
}

export function parseTx(raw: Uint8Array): ElementsTx {
  const buffer = Buffer.from(raw);
  return wrapTx(Transaction.fromBuffer(buffer), buffer);
}

/** Input i's outpoint: txid (display order) and vout. */
export function prevout(tx: Transaction, i: number): { txid: string; vout: number } {
  return { txid: Buffer.from(tx.ins[i].hash).reverse().toString('hex'), vout: tx.ins[i].index };
}

export const outpointKey = (txid: string, vout: number): string => `${txid}:${vout}`;

export const isExplicitValue = (out: TxOutput): boolean => out.value.length === 9 && out.value[0] === 0x01;
export const isExplicitAsset = (out: TxOutput): boolean => out.asset.length === 33 && out.asset[0] === 0x01;

/** An explicit amount in satoshi (undefined when blinded). */
export const explicitValue = (out: TxOutput): bigint | undefined => (isExplicitValue(out) ? out.value.readBigUInt64BE(1) : undefined);

/** An explicit asset id as elementsd displays it (byte-reversed), or undefined when blinded. */
export const explicitAsset = (out: TxOutput): string | undefined =>
  isExplicitAsset(out) ? Buffer.from(out.asset.subarray(1)).reverse().toString('hex') : undefined;

/** elementsd's CTxOut::IsFee: empty script, explicit value and asset. */
export const isFee = (out: TxOutput): boolean => out.script.length === 0 && isExplicitValue(out) && isExplicitAsset(out);

/** Outputs never added to the UTXO set: OP_RETURN, oversized scripts, fee outputs. */
export const isUnspendable = (out: TxOutput): boolean =>
  (out.script.length > 0 && out.script[0] === 0x6a) || out.script.length > 10_000 || out.script.length === 0;

/** The fee a transaction pays in the policy asset (sum of its explicit L-BTC fee outputs). */
export function policyFee(tx: Transaction): bigint {
  let fee = 0n;
  for (const out of tx.outs) if (isFee(out) && explicitAsset(out) === REGTEST_POLICY_ASSET) fee += explicitValue(out)!;
  return fee;
}

/** The verifier's view of a spent output. */
export function toPrevout(out: TxOutput): ElementsPrevout {
  const value = explicitValue(out);
  const asset = explicitAsset(out);
  if (value !== undefined && asset !== undefined) return { script: out.script, value, asset };
  return { script: out.script, valueCommitment: out.value, assetCommitment: out.asset, nonce: out.nonce };
}

/** An explicit output of `asset`: 0x01 ‖ asset (internal order), 0x01 ‖ value (big-endian), no nonce. */
export function explicitOutput(script: Uint8Array, value: bigint, asset = REGTEST_POLICY_ASSET): TxOutput {
  const amount = Buffer.alloc(9);
  amount[0] = 0x01;
  amount.writeBigUInt64BE(value, 1);
  return {
    script: Buffer.from(script),
    value: amount,
    asset: Buffer.concat([Buffer.of(0x01), Buffer.from(asset, 'hex').reverse()]),
    nonce: Buffer.of(0x00),
  };
}
