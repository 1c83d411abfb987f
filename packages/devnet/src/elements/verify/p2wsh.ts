// Witness v0 script-hash spends (P2WSH): the last witness item is the script, whose SHA256 must be the program, run
// on the other items by a small interpreter of the opcodes legacy swap scripts use (boltz-core's swapScript and
// reverseSwapScript: pushes, OP_IF/NOTIF/ELSE/ENDIF, OP_SIZE, OP_EQUAL(VERIFY), OP_HASH160, OP_SHA256,
// OP_CHECKSIG(VERIFY), OP_CHECKLOCKTIMEVERIFY, OP_DROP, OP_VERIFY) under Core's witness v0 rules (interpreter.cpp:
// ExecuteWitnessScript, EvalScript), with elementsd's reject reasons. Any other opcode is refused as unsupported,
// never run: the devnet does not claim to judge scripts it does not know.
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { fail, unsupported, type ScriptFailure } from './errors.ts';
import { encodeNumber } from './number.ts';
import type { SpendContext } from './sighash.ts';
import { checkEcdsa } from './segwit.ts';
import { checkLockTime, isTrue, readPush } from './tapscript.ts';

const MAX_ELEMENT_SIZE = 520;
const MAX_SCRIPT_SIZE = 10_000;
const MAX_OPS = 201;

const OP = { IF: 0x63, NOTIF: 0x64, ELSE: 0x67, ENDIF: 0x68, VERIFY: 0x69, DROP: 0x75, SIZE: 0x82, EQUAL: 0x87, EQUALVERIFY: 0x88 } as const;
const OP_SHA256 = 0xa8;
const OP_HASH160 = 0xa9;
const OP_CHECKSIG = 0xac;
const OP_CHECKSIGVERIFY = 0xad;
const OP_CHECKLOCKTIMEVERIFY = 0xb1;

/** Stack items each implemented opcode needs when it runs. */
const STACK_NEEDS: Record<number, number> = {
  [OP.IF]: 1,
  [OP.NOTIF]: 1,
  [OP.ELSE]: 0,
  [OP.ENDIF]: 0,
  [OP.VERIFY]: 1,
  [OP.DROP]: 1,
  [OP.SIZE]: 1,
  [OP.EQUAL]: 2,
  [OP.EQUALVERIFY]: 2,
  [OP_SHA256]: 1,
  [OP_HASH160]: 1,
  [OP_CHECKSIG]: 2,
  [OP_CHECKSIGVERIFY]: 2,
  [OP_CHECKLOCKTIMEVERIFY]: 1,
};

export function verifyP2wsh(ctx: SpendContext, index: number, program: Uint8Array, witness: Uint8Array[], standard: boolean): ScriptFailure | undefined {
  if (witness.length === 0) return fail('WITNESS_PROGRAM_WITNESS_EMPTY');
  const script = witness[witness.length - 1];
  if (!Buffer.from(sha256(script)).equals(Buffer.from(program))) return fail('WITNESS_PROGRAM_MISMATCH');
  const stack = witness.slice(0, -1).map((item) => Uint8Array.from(item));
  if (stack.some((item) => item.length > MAX_ELEMENT_SIZE)) return fail('PUSH_SIZE');
  const input = ctx.tx.ins[index];
  const failure = runWitnessV0Script(script, stack, {
    locktime: ctx.tx.locktime,
    sequence: input.sequence,
    standard,
    checkSig: (signature, pubkey) => checkEcdsa(ctx, index, script, signature, pubkey, standard),
  });
  if (failure !== undefined) return failure;
  // Witness scripts require a clean stack holding one true element (consensus).
  if (stack.length !== 1) return fail('CLEANSTACK');
  if (!isTrue(stack[0])) return fail('EVAL_FALSE');
  return undefined;
}

interface V0Context {
  locktime: number;
  sequence: number;
  standard: boolean;
  /** OP_CHECKSIG of the script (its scriptCode: the whole script, no OP_CODESEPARATOR). */
  checkSig(signature: Uint8Array, pubkey: Uint8Array): ScriptFailure | boolean;
}

/** EvalScript under SigVersion::WITNESS_V0; leaves the stack as the script left it. */
function runWitnessV0Script(script: Uint8Array, stack: Uint8Array[], ctx: V0Context): ScriptFailure | undefined {
  if (script.length > MAX_SCRIPT_SIZE) return fail('SCRIPT_SIZE');
  const branches: boolean[] = []; // vfExec: whether each open OP_IF branch runs
  let ops = 0;
  let pc = 0;
  while (pc < script.length) {
    const executing = branches.every(Boolean);
    const opcode = script[pc++];
    if (opcode <= 0x4e) {
      const push = readPush(script, pc, opcode);
      if (push === undefined) return fail('BAD_OPCODE');
      if (push.data.length > MAX_ELEMENT_SIZE) return fail('PUSH_SIZE');
      if (executing) stack.push(push.data);
      pc = push.next;
      continue;
    }
    if (opcode > 0x60 && ++ops > MAX_OPS) return fail('OP_COUNT');
    if (opcode === 0x4f || (opcode >= 0x51 && opcode <= 0x60)) {
      if (executing) stack.push(encodeNumber(opcode === 0x4f ? -1 : opcode - 0x50)); // OP_1NEGATE, OP_1..OP_16
      continue;
    }
    if (!(opcode in STACK_NEEDS)) return unsupported(`opcode 0x${opcode.toString(16)} is not implemented by the devnet`);
    const conditional = opcode >= OP.IF && opcode <= OP.ENDIF;
    if (!executing && !conditional) continue;
    if (opcode === OP.ELSE || opcode === OP.ENDIF) {
      if (branches.length === 0) return fail('UNBALANCED_CONDITIONAL');
      if (opcode === OP.ELSE) branches.push(!branches.pop()!);
      else branches.pop();
      continue;
    }
    if (opcode === OP.IF || opcode === OP.NOTIF) {
      if (!executing) {
        branches.push(false);
        continue;
      }
      if (stack.length < 1) return fail('UNBALANCED_CONDITIONAL');
      const condition = stack.pop()!;
      // Witness v0 takes only an empty or 0x01 argument, by policy (MINIMALIF).
      if (ctx.standard && (condition.length > 1 || (condition.length === 1 && condition[0] !== 1))) return fail('MINIMALIF');
      branches.push(isTrue(condition) === (opcode === OP.IF));
      continue;
    }
    if (stack.length < STACK_NEEDS[opcode]) return fail('INVALID_STACK_OPERATION');
    const failure = execute(opcode, stack, ctx);
    if (failure !== undefined) return failure;
  }
  if (branches.length !== 0) return fail('UNBALANCED_CONDITIONAL');
  return undefined;
}

function execute(opcode: number, stack: Uint8Array[], ctx: V0Context): ScriptFailure | undefined {
  const pop = (): Uint8Array => stack.pop()!;
  switch (opcode) {
    case OP.VERIFY:
      return isTrue(pop()) ? undefined : fail('VERIFY');
    case OP.DROP:
      pop();
      return undefined;
    case OP.SIZE:
      stack.push(encodeNumber(stack[stack.length - 1].length));
      return undefined;
    case OP.EQUAL:
    case OP.EQUALVERIFY: {
      const equal = Buffer.from(pop()).equals(Buffer.from(pop()));
      if (opcode === OP.EQUALVERIFY) return equal ? undefined : fail('EQUALVERIFY');
      stack.push(equal ? Uint8Array.of(1) : new Uint8Array());
      return undefined;
    }
    case OP_SHA256:
      stack.push(sha256(pop()));
      return undefined;
    case OP_HASH160:
      stack.push(ripemd160(sha256(pop())));
      return undefined;
    case OP_CHECKSIG:
    case OP_CHECKSIGVERIFY: {
      const pubkey = pop();
      const result = ctx.checkSig(pop(), pubkey);
      if (typeof result !== 'boolean') return result;
      if (opcode === OP_CHECKSIGVERIFY) return result ? undefined : fail('CHECKSIGVERIFY');
      stack.push(result ? Uint8Array.of(1) : new Uint8Array());
      return undefined;
    }
    case OP_CHECKLOCKTIMEVERIFY:
      // The operand stays on the stack.
      return checkLockTime(stack[stack.length - 1], ctx);
  }
  return undefined;
}
