// A small tapscript interpreter for the leaves Ferry's swaps use (boltz-core's claim, refund and claim covenant
// leaves: pushes, OP_SIZE, OP_HASH160, OP_EQUAL(VERIFY), OP_CHECKSIG(VERIFY), OP_CHECKLOCKTIMEVERIFY,
// OP_DROP, OP_VERIFY, and Elements' introspection opcodes of introspection.ts). There is no maintained JavaScript
// interpreter of Elements script; any other opcode (streaming SHA256, 64-bit arithmetic…) is refused as
// unsupported, never run.
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { fail, unsupported, type ScriptFailure } from './errors.ts';
import { INTROSPECTION_POPS, introspect, type IntrospectionContext } from './introspection.ts';
import { decodeNumber, encodeNumber } from './number.ts';

const MAX_ELEMENT_SIZE = 520;
const LOCKTIME_THRESHOLD = 500_000_000;
const SEQUENCE_FINAL = 0xffffffff;

export interface TapscriptContext {
  locktime: number; // the spending transaction's nLockTime
  sequence: number; // the input's nSequence
  standard: boolean; // relay policy on top of consensus
  validationWeight: number; // BIP342 budget: serialized witness size + 50, spent 50 per signature check
  introspection: IntrospectionContext; // the transaction, its spent outputs and this input, for introspection opcodes
  /** BIP342 signature check of a non-empty signature against a 32-byte key. */
  checkSchnorr(signature: Uint8Array, pubkey: Uint8Array): ScriptFailure | boolean;
}

export function runTapscript(script: Uint8Array, witness: Uint8Array[], ctx: TapscriptContext): ScriptFailure | undefined {
  const stack: Uint8Array[] = witness.map((item) => Uint8Array.from(item));
  if (stack.some((item) => item.length > MAX_ELEMENT_SIZE)) return fail('PUSH_SIZE');
  const pop = (): Uint8Array | undefined => stack.pop();
  let pc = 0;
  while (pc < script.length) {
    const opcode = script[pc++];
    if (opcode <= 0x4e) {
      const push = readPush(script, pc, opcode);
      if (push === undefined) return fail('BAD_OPCODE');
      if (push.data.length > MAX_ELEMENT_SIZE) return fail('PUSH_SIZE');
      stack.push(push.data);
      pc = push.next;
      continue;
    }
    if (opcode === 0x4f || (opcode >= 0x51 && opcode <= 0x60)) {
      stack.push(encodeNumber(opcode === 0x4f ? -1 : opcode - 0x50)); // OP_1NEGATE, OP_1..OP_16
      continue;
    }
    const need = STACK_NEEDS[opcode] ?? INTROSPECTION_POPS[opcode];
    if (need === undefined) return unsupported(`opcode 0x${opcode.toString(16)} is not implemented by the devnet`);
    if (stack.length < need) return fail('INVALID_STACK_OPERATION');
    if (INTROSPECTION_POPS[opcode] !== undefined) {
      const failure = introspect(opcode, stack, ctx.introspection, ctx.standard);
      if (failure !== undefined) return failure;
      continue;
    }
    switch (opcode) {
      case 0x69: // OP_VERIFY
        if (!isTrue(pop()!)) return fail('VERIFY');
        break;
      case 0x75: // OP_DROP
        pop();
        break;
      case 0x82: // OP_SIZE
        stack.push(encodeNumber(stack[stack.length - 1].length));
        break;
      case 0x87: // OP_EQUAL
      case 0x88: {
        // OP_EQUALVERIFY
        const equal = Buffer.from(pop()!).equals(Buffer.from(pop()!));
        if (opcode === 0x88) {
          if (!equal) return fail('EQUALVERIFY');
        } else stack.push(equal ? Uint8Array.of(1) : new Uint8Array());
        break;
      }
      case 0xa8: // OP_SHA256
        stack.push(sha256(pop()!));
        break;
      case 0xa9: // OP_HASH160
        stack.push(ripemd160(sha256(pop()!)));
        break;
      case 0xac: // OP_CHECKSIG
      case 0xad: {
        // OP_CHECKSIGVERIFY
        const pubkey = pop()!;
        const signature = pop()!;
        const result = checkSig(signature, pubkey, ctx);
        if (typeof result !== 'boolean') return result;
        if (opcode === 0xad) {
          if (!result) return fail('CHECKSIGVERIFY');
        } else stack.push(result ? Uint8Array.of(1) : new Uint8Array());
        break;
      }
      case 0xb1: {
        // OP_CHECKLOCKTIMEVERIFY: the operand stays on the stack
        const failure = checkLockTime(stack[stack.length - 1], ctx);
        if (failure !== undefined) return failure;
        break;
      }
    }
  }
  // Tapscript requires a clean stack (consensus, BIP342) holding one true element.
  if (stack.length !== 1) return fail('CLEANSTACK');
  if (!isTrue(stack[0])) return fail('EVAL_FALSE');
  return undefined;
}

/** Elements needed on the stack by each implemented non-push opcode. */
const STACK_NEEDS: Record<number, number> = { 0x69: 1, 0x75: 1, 0x82: 1, 0x87: 2, 0x88: 2, 0xa8: 1, 0xa9: 1, 0xac: 2, 0xad: 2, 0xb1: 1 };

export function readPush(script: Uint8Array, pc: number, opcode: number): { data: Uint8Array; next: number } | undefined {
  let size = opcode;
  let start = pc;
  if (opcode === 0x4c) [size, start] = [script[pc], pc + 1];
  else if (opcode === 0x4d) [size, start] = [script[pc] | (script[pc + 1] << 8), pc + 2];
  else if (opcode === 0x4e) [size, start] = [Buffer.from(script.subarray(pc, pc + 4)).readUInt32LE(0), pc + 4];
  if (start > script.length || start + size > script.length || Number.isNaN(size)) return undefined;
  return { data: script.slice(start, start + size), next: start + size };
}

export function isTrue(item: Uint8Array): boolean {
  for (let i = 0; i < item.length; i++) {
    if (item[i] !== 0) return !(i === item.length - 1 && item[i] === 0x80); // negative zero is false
  }
  return false;
}

/** BIP342 OP_CHECKSIG: empty signature → false; unknown key types succeed (discouraged by policy). */
function checkSig(signature: Uint8Array, pubkey: Uint8Array, ctx: TapscriptContext): ScriptFailure | boolean {
  if (pubkey.length === 0) return fail('TAPSCRIPT_EMPTY_PUBKEY');
  if (pubkey.length !== 32) {
    if (ctx.standard) return fail('DISCOURAGE_UPGRADABLE_PUBKEYTYPE');
    if (signature.length > 0 && (ctx.validationWeight -= 50) < 0) return fail('TAPSCRIPT_VALIDATION_WEIGHT');
    return signature.length > 0;
  }
  if (signature.length === 0) return false;
  ctx.validationWeight -= 50;
  if (ctx.validationWeight < 0) return fail('TAPSCRIPT_VALIDATION_WEIGHT');
  // A non-empty signature that does not verify fails the script (BIP342), it never pushes false.
  return ctx.checkSchnorr(signature, pubkey);
}

/** Core's CHECKLOCKTIMEVERIFY + CheckLockTime, without chain height: the node checks finality. */
export function checkLockTime(operand: Uint8Array, ctx: { locktime: number; sequence: number }): ScriptFailure | undefined {
  const lockTime = decodeNumber(operand, 5);
  if (lockTime === undefined) return fail('UNKNOWN');
  if (lockTime < 0) return fail('NEGATIVE_LOCKTIME');
  const sameKind = (lockTime < LOCKTIME_THRESHOLD) === (ctx.locktime < LOCKTIME_THRESHOLD);
  if (!sameKind || lockTime > ctx.locktime) return fail('UNSATISFIED_LOCKTIME');
  // A final input would make nLockTime ineffective.
  if (ctx.sequence === SEQUENCE_FINAL) return fail('UNSATISFIED_LOCKTIME');
  return undefined;
}
