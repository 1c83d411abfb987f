// The JSON views elementsd's RPC gives of transactions, outputs, blocks (headers on common/header-json.ts) and
// mempool entries: explicit outputs show value + asset, blinded ones their commitments; inputs their issuances.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { address as laddress, issuance as liquidIssuance, networks, type Transaction, type TxOutput } from 'liquidjs-lib';
import { satToBtc } from '../bitcoin/amount.ts';
import { classifyScript, descriptorWithChecksum, scriptToAsm } from '../bitcoin/script.ts';
import { headerJson } from '../common/header-json.ts';
import type { ElementsBlockEntry } from './chain.ts';
import type { ElementsMempoolEntry } from './mempool.ts';
import type { ElementsNode } from './node.ts';
import { explicitAsset, explicitValue, isFee, prevout, type ElementsTx } from './tx.ts';
import { isNullIssuance, isReissuance, newIssuanceIds } from './verify/issuance.ts';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** elementsregtest's unconfidential address of a script, if it has one. */
export function scriptToAddress(script: Uint8Array): string | undefined {
  try {
    return laddress.fromOutputScript(Buffer.from(script), networks.regtest);
  } catch {
    return undefined;
  }
}

export function scriptPubKeyJson(script: Uint8Array): Record<string, unknown> {
  const address = scriptToAddress(script);
  return {
    asm: scriptToAsm(script),
    desc: descriptorWithChecksum(address !== undefined ? `addr(${address})` : `raw(${hex(script)})`),
    hex: hex(script),
    ...(address !== undefined ? { address } : {}),
    type: script.length === 0 ? 'fee' : classifyScript(script),
  };
}

function nonceValid(nonce: Uint8Array): boolean {
  if (nonce.length !== 33) return false;
  try {
    secp256k1.Point.fromBytes(nonce);
    return true;
  } catch {
    return false;
  }
}

/** An output's amount fields: value/asset when explicit, valuecommitment/assetcommitment when blinded. */
export function outputAmountJson(out: TxOutput): Record<string, unknown> {
  const value = explicitValue(out);
  const asset = explicitAsset(out);
  return {
    ...(value !== undefined ? { value: satToBtc(value) } : { valuecommitment: hex(out.value) }),
    ...(asset !== undefined ? { asset } : { assetcommitment: hex(out.asset) }),
    commitmentnonce: out.nonce.length > 1 ? hex(out.nonce) : '',
    commitmentnonce_fully_valid: nonceValid(out.nonce),
  };
}

const displayed = (bytes: Uint8Array): string => hex(Uint8Array.from(bytes).reverse());

/** elementsd's vin "issuance": ids as displayed, each amount explicit (BTC-like) or as its commitment. */
function issuanceJson(input: Transaction['ins'][number]): Record<string, unknown> {
  const issuance = input.issuance!;
  const reissue = isReissuance(issuance);
  const ids = reissue ? undefined : newIssuanceIds(input);
  const amount = (bytes: Uint8Array, name: string): Record<string, unknown> => {
    if (bytes.length === 9 && bytes[0] === 0x01) return { [name]: satToBtc(Buffer.from(bytes).readBigUInt64BE(1)) };
    return bytes.length === 33 ? { [`${name}commitment`]: hex(bytes) } : {};
  };
  return {
    assetBlindingNonce: displayed(issuance.assetBlindingNonce),
    assetEntropy: displayed(ids ? ids.entropy : issuance.assetEntropy),
    isreissuance: reissue,
    ...(ids ? { token: displayed(ids.token) } : {}),
    asset: displayed(ids ? ids.asset : liquidIssuance.calculateAsset(issuance.assetEntropy)),
    ...amount(issuance.assetAmount, 'assetamount'),
    ...amount(issuance.tokenAmount, 'tokenamount'),
  };
}

export function txToJson(etx: ElementsTx, options: { hex?: boolean } = {}): Record<string, unknown> {
  const { tx } = etx;
  const coinbase = tx.isCoinbase();
  const vin = tx.ins.map((input, i) => {
    const { txid, vout } = prevout(tx, i);
    const entry: Record<string, unknown> = coinbase
      ? { coinbase: hex(input.script) }
      : { txid, vout, scriptSig: { asm: scriptToAsm(input.script, true), hex: hex(input.script) }, is_pegin: input.isPegin === true };
    if (input.witness.length > 0) entry.txinwitness = input.witness.map(hex);
    if (input.issuance && !isNullIssuance(input.issuance)) entry.issuance = issuanceJson(input);
    entry.sequence = input.sequence;
    return entry;
  });
  const vout = tx.outs.map((out, n) => ({ ...outputAmountJson(out), n, scriptPubKey: scriptPubKeyJson(out.script) }));
  const feeSat = new Map<string, bigint>();
  for (const out of tx.outs) {
    if (isFee(out)) feeSat.set(explicitAsset(out)!, (feeSat.get(explicitAsset(out)!) ?? 0n) + explicitValue(out)!);
  }
  const fee = Object.fromEntries([...feeSat].map(([asset, sat]) => [asset, satToBtc(sat)]));
  return {
    txid: etx.txid,
    hash: etx.wtxid,
    wtxid: etx.wtxid,
    version: tx.version,
    size: etx.size,
    vsize: Math.ceil(etx.fullWeight / 4),
    discountvsize: etx.vsize,
    weight: etx.fullWeight,
    discountweight: etx.weight,
    locktime: tx.locktime,
    vin,
    vout,
    ...(Object.keys(fee).length > 0 ? { fee } : {}),
    ...(options.hex ? { hex: hex(etx.raw) } : {}),
  };
}

export function headerToJson(node: ElementsNode, entry: ElementsBlockEntry): Record<string, unknown> {
  const { header } = entry.block;
  return headerJson(node, entry, {
    signblock_witness_asm: scriptToAsm(header.solution),
    signblock_witness_hex: hex(header.solution),
    signblock_challenge: hex(header.challenge),
  });
}

export function blockToJson(node: ElementsNode, entry: ElementsBlockEntry, verbosity: 1 | 2): Record<string, unknown> {
  const { block } = entry;
  const strippedsize = block.size - block.txs.reduce((sum, etx) => sum + etx.size - (etx.fullWeight - etx.size) / 3, 0);
  return {
    ...headerToJson(node, entry),
    strippedsize,
    size: block.size,
    weight: block.weight,
    tx: verbosity === 1 ? block.txs.map((etx) => etx.txid) : block.txs.map((etx) => txToJson(etx, { hex: true })),
  };
}

export function mempoolEntryToJson(entry: ElementsMempoolEntry): Record<string, unknown> {
  return {
    // As decoderawtransaction: the full size, and the discounted one the relay floor applies to.
    vsize: Math.ceil(entry.tx.fullWeight / 4),
    discountvsize: entry.tx.vsize,
    weight: entry.tx.fullWeight,
    discountweight: entry.tx.weight,
    time: entry.time,
    height: entry.height,
    wtxid: entry.tx.wtxid,
    fees: { base: satToBtc(entry.fee), modified: satToBtc(entry.fee) },
    depends: [...entry.parents],
    spentby: [...entry.children],
  };
}
