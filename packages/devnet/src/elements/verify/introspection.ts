// Elements' tapscript introspection opcodes (doc/tapscript_opcodes.md, interpreter.cpp): what a script may read of
// the spending transaction — its inputs' spent assets, values, scripts and sequences, its outputs' assets, values,
// nonces and scripts, the current input's index and the transaction's version, lock time and input/output counts —
// pushed with elementsd's exact stack effects, so that covenants (Boltz's claim covenant leaf) are judged for real.
import { sha256 } from '@noble/hashes/sha2.js';
import type { Transaction } from 'liquidjs-lib';
import { fail, type ScriptFailure } from './errors.ts';
import type { ElementsPrevout } from './index.ts';
import { decodeNumber, encodeNumber } from './number.ts';
import { prevoutAsset, prevoutValue } from './sighash.ts';

export interface IntrospectionContext {
  tx: Transaction;
  prevouts: ElementsPrevout[];
  index: number; // the input being verified
}

/** Non-push opcode → elements it pops (the index operand) for the introspection opcodes implemented here. */
export const INTROSPECTION_POPS: Record<number, number> = {
  0xc7: 1, // OP_INSPECTINPUTOUTPOINT
  0xc8: 1, // OP_INSPECTINPUTASSET
  0xc9: 1, // OP_INSPECTINPUTVALUE
  0xca: 1, // OP_INSPECTINPUTSCRIPTPUBKEY
  0xcb: 1, // OP_INSPECTINPUTSEQUENCE
  0xcd: 0, // OP_PUSHCURRENTINPUTINDEX
  0xce: 1, // OP_INSPECTOUTPUTASSET
  0xcf: 1, // OP_INSPECTOUTPUTVALUE
  0xd0: 1, // OP_INSPECTOUTPUTNONCE
  0xd1: 1, // OP_INSPECTOUTPUTSCRIPTPUBKEY
  0xd2: 0, // OP_INSPECTVERSION
  0xd3: 0, // OP_INSPECTLOCKTIME
  0xd4: 0, // OP_INSPECTNUMINPUTS
  0xd5: 0, // OP_INSPECTNUMOUTPUTS
};

const OUTPOINT_ISSUANCE_FLAG = 0x80; // COutPoint::OUTPOINT_ISSUANCE_FLAG >> 24
const OUTPOINT_PEGIN_FLAG = 0x40; // COutPoint::OUTPOINT_PEGIN_FLAG >> 24

/** Runs one introspection opcode on `stack`; undefined on success. `minimal`: SCRIPT_VERIFY_MINIMALDATA (policy). */
export function introspect(opcode: number, stack: Uint8Array[], ctx: IntrospectionContext, minimal: boolean): ScriptFailure | undefined {
  const { tx } = ctx;
  switch (opcode) {
    case 0xcd:
      stack.push(encodeNumber(ctx.index));
      return undefined;
    case 0xd2:
      stack.push(le32(tx.version));
      return undefined;
    case 0xd3:
      stack.push(le32(tx.locktime));
      return undefined;
    case 0xd4:
      stack.push(encodeNumber(tx.ins.length));
      return undefined;
    case 0xd5:
      stack.push(encodeNumber(tx.outs.length));
      return undefined;
  }
  const index = scriptIndex(stack.pop()!, minimal);
  if (index === undefined) return fail('UNKNOWN');
  if (opcode >= 0xc7 && opcode <= 0xcb) {
    if (index < 0 || index >= tx.ins.length) return fail('INTROSPECT_INDEX_OUT_OF_BOUNDS');
    const input = tx.ins[index];
    const spent = ctx.prevouts[index];
    if (opcode === 0xc7) {
      stack.push(Uint8Array.from(input.hash), le32(input.index));
      const flag = (input.issuance !== undefined ? OUTPOINT_ISSUANCE_FLAG : 0) | (input.isPegin === true ? OUTPOINT_PEGIN_FLAG : 0);
      stack.push(Uint8Array.of(flag));
    } else if (opcode === 0xc8) pushAsset(stack, prevoutAsset(spent));
    else if (opcode === 0xc9) pushValue(stack, prevoutValue(spent));
    else if (opcode === 0xca) pushScriptPubKey(stack, spent.script);
    else stack.push(le32(input.sequence));
    return undefined;
  }
  if (index < 0 || index >= tx.outs.length) return fail('INTROSPECT_INDEX_OUT_OF_BOUNDS');
  const output = tx.outs[index];
  if (opcode === 0xce) pushAsset(stack, output.asset);
  else if (opcode === 0xcf) pushValue(stack, output.value);
  else if (opcode === 0xd0) stack.push(isNull(output.nonce) ? new Uint8Array() : Uint8Array.from(output.nonce));
  else pushScriptPubKey(stack, output.script);
  return undefined;
}

/** pushasset: the asset id or commitment without its prefix, then the prefix (0x01 explicit, 0x0a/0x0b blinded). */
function pushAsset(stack: Uint8Array[], asset: Uint8Array): void {
  stack.push(asset.slice(1), asset.slice(0, 1));
}

/** pushvalue: an explicit amount as 8 bytes little-endian then 0x01; a commitment without its prefix, then the prefix. */
function pushValue(stack: Uint8Array[], value: Uint8Array | undefined): void {
  if (value === undefined || isNull(value)) {
    stack.push(new Uint8Array(8), Uint8Array.of(0x01));
  } else if (value[0] === 0x01) {
    stack.push(Uint8Array.from(value.subarray(1, 9)).reverse(), Uint8Array.of(0x01));
  } else stack.push(value.slice(1), value.slice(0, 1));
}

/** pushspk: a witness program then its version as a script number; any other script's SHA256 then -1. */
function pushScriptPubKey(stack: Uint8Array[], script: Uint8Array): void {
  const op = script[0];
  const isWitness =
    script.length >= 4 && script.length <= 42 && (op === 0x00 || (op >= 0x51 && op <= 0x60)) && script[1] + 2 === script.length;
  if (isWitness) stack.push(script.slice(2), encodeNumber(op === 0 ? 0 : op - 0x50));
  else stack.push(sha256(script), encodeNumber(-1));
}

/** CScriptNum of at most 4 bytes, minimally encoded when `minimal`; undefined where elementsd throws scriptnum_error. */
function scriptIndex(bytes: Uint8Array, minimal: boolean): number | undefined {
  if (minimal && bytes.length > 0 && (bytes[bytes.length - 1] & 0x7f) === 0) {
    if (bytes.length === 1 || (bytes[bytes.length - 2] & 0x80) === 0) return undefined;
  }
  return decodeNumber(bytes, 4);
}

function isNull(field: Uint8Array | undefined): boolean {
  return field === undefined || field.length === 0 || (field.length === 1 && field[0] === 0);
}

function le32(value: number): Uint8Array {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value >>> 0);
  return Uint8Array.from(bytes);
}
