// Output scripts as Core describes them: the type names of Solver(), `asm` (ScriptToAsmStr), regtest
// addresses, and inferred descriptors with their checksum.
import { bech32, bech32m, createBase58check } from '@scure/base';
import { isValidSignatureEncoding } from '../common/der.ts';
import { concat, sha256, toHex } from './bytes.ts';
import {
  OP_0,
  OP_1,
  OP_16,
  OP_CHECKMULTISIG,
  OP_CHECKSIG,
  OP_DUP,
  OP_EQUAL,
  OP_EQUALVERIFY,
  OP_HASH160,
  OP_PUSHDATA1,
  OP_PUSHDATA2,
  OP_PUSHDATA4,
  OP_RETURN,
  opName,
} from './opcodes.ts';

export const REGTEST = { hrp: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4 } as const;

const base58check = createBase58check(sha256);

export interface ScriptOp {
  opcode: number;
  data?: Uint8Array; // for pushes
}

/** Splits a script into operations; undefined when a push runs past the end (Core prints "[error]"). */
export function parseScript(script: Uint8Array): { ops: ScriptOp[]; error: boolean } {
  const ops: ScriptOp[] = [];
  let i = 0;
  while (i < script.length) {
    const opcode = script[i++];
    if (opcode > OP_PUSHDATA4) {
      ops.push({ opcode });
      continue;
    }
    let size = opcode;
    if (opcode === OP_PUSHDATA1) {
      if (i + 1 > script.length) return { ops, error: true };
      size = script[i];
      i += 1;
    } else if (opcode === OP_PUSHDATA2) {
      if (i + 2 > script.length) return { ops, error: true };
      size = script[i] | (script[i + 1] << 8);
      i += 2;
    } else if (opcode === OP_PUSHDATA4) {
      if (i + 4 > script.length) return { ops, error: true };
      size = (script[i] | (script[i + 1] << 8) | (script[i + 2] << 16) | (script[i + 3] << 24)) >>> 0;
      i += 4;
    }
    if (i + size > script.length) return { ops, error: true };
    ops.push({ opcode, data: script.subarray(i, i + size) });
    i += size;
  }
  return { ops, error: false };
}

export const isPushOnly = (script: Uint8Array): boolean => {
  const { ops, error } = parseScript(script);
  return !error && ops.every((op) => op.opcode <= OP_16);
};

function scriptNumToString(data: Uint8Array): string {
  if (data.length === 0) return '0';
  let value = 0n;
  for (let i = data.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(i === data.length - 1 ? data[i] & 0x7f : data[i]);
  if (data[data.length - 1] & 0x80) value = -value;
  return value.toString();
}

/** BIP66 strict DER plus a defined hash type: the test Core uses before printing "[ALL]" in a scriptSig. */
function looksLikeSignature(sig: Uint8Array): boolean {
  if (!isValidSignatureEncoding(sig)) return false;
  const type = sig[sig.length - 1] & ~0x80;
  return type >= 1 && type <= 3;
}

const sighashNames: Record<number, string> = {
  0x01: 'ALL',
  0x02: 'NONE',
  0x03: 'SINGLE',
  0x81: 'ALL|ANYONECANPAY',
  0x82: 'NONE|ANYONECANPAY',
  0x83: 'SINGLE|ANYONECANPAY',
};

export function scriptToAsm(script: Uint8Array, decodeSighash = false): string {
  const { ops, error } = parseScript(script);
  const unspendable = script.length > 0 && script[0] === OP_RETURN;
  const parts = ops.map(({ opcode, data }) => {
    if (!data) return opName(opcode);
    if (data.length <= 4) return scriptNumToString(data);
    if (decodeSighash && !unspendable && looksLikeSignature(data)) {
      return toHex(data.subarray(0, data.length - 1)) + `[${sighashNames[data[data.length - 1]]}]`;
    }
    return toHex(data);
  });
  if (error) parts.push('[error]');
  return parts.join(' ');
}

export type ScriptType =
  | 'pubkey'
  | 'pubkeyhash'
  | 'scripthash'
  | 'multisig'
  | 'nulldata'
  | 'witness_v0_keyhash'
  | 'witness_v0_scripthash'
  | 'witness_v1_taproot'
  | 'anchor'
  | 'witness_unknown'
  | 'nonstandard';

export interface WitnessProgram {
  version: number;
  program: Uint8Array;
}

export function witnessProgram(script: Uint8Array): WitnessProgram | undefined {
  if (script.length < 4 || script.length > 42) return undefined;
  const version = script[0];
  if (version !== OP_0 && (version < OP_1 || version > OP_16)) return undefined;
  if (script[1] + 2 !== script.length) return undefined;
  return { version: version === OP_0 ? 0 : version - 0x50, program: script.subarray(2) };
}

const isPubkeyLength = (n: number): boolean => n === 33 || n === 65;

export function classifyScript(script: Uint8Array): ScriptType {
  const n = script.length;
  if (n === 25 && script[0] === OP_DUP && script[1] === OP_HASH160 && script[2] === 20 && script[23] === OP_EQUALVERIFY && script[24] === OP_CHECKSIG)
    return 'pubkeyhash';
  if (n === 23 && script[0] === OP_HASH160 && script[1] === 20 && script[22] === OP_EQUAL) return 'scripthash';
  const witness = witnessProgram(script);
  if (witness) {
    if (witness.version === 0 && witness.program.length === 20) return 'witness_v0_keyhash';
    if (witness.version === 0 && witness.program.length === 32) return 'witness_v0_scripthash';
    if (witness.version === 0) return 'nonstandard';
    if (witness.version === 1 && witness.program.length === 32) return 'witness_v1_taproot';
    if (witness.version === 1 && n === 4 && script[2] === 0x4e && script[3] === 0x73) return 'anchor';
    return 'witness_unknown';
  }
  if (n >= 1 && script[0] === OP_RETURN && isPushOnly(script.subarray(1))) return 'nulldata';
  if (isPubkeyLength(n - 2) && script[0] === n - 2 && script[n - 1] === OP_CHECKSIG) return 'pubkey';
  const { ops, error } = parseScript(script);
  if (!error && ops.length >= 4 && ops[ops.length - 1].opcode === OP_CHECKMULTISIG) {
    const m = ops[0].opcode - 0x50;
    const k = ops[ops.length - 2].opcode - 0x50;
    const keys = ops.slice(1, -2);
    if (m >= 1 && k >= m && k <= 16 && keys.length === k && keys.every((op) => op.data && isPubkeyLength(op.data.length)))
      return 'multisig';
  }
  return 'nonstandard';
}

/** The regtest address of an output script, if it has one (Core: ExtractDestination). */
export function scriptToAddress(script: Uint8Array): string | undefined {
  const type = classifyScript(script);
  if (type === 'pubkeyhash') return base58check.encode(concat([Uint8Array.of(REGTEST.pubKeyHash), script.subarray(3, 23)]));
  if (type === 'scripthash') return base58check.encode(concat([Uint8Array.of(REGTEST.scriptHash), script.subarray(2, 22)]));
  const witness = witnessProgram(script);
  if (!witness || type === 'nonstandard') return undefined;
  const words = [witness.version, ...bech32.toWords(witness.program)];
  return witness.version === 0 ? bech32.encode(REGTEST.hrp, words, 90) : bech32m.encode(REGTEST.hrp, words, 90);
}

export class InvalidAddress extends Error {}

/** Parses a regtest address into its output script (Core: DecodeDestination + GetScriptForDestination). */
export function addressToScript(address: string): Uint8Array {
  const lower = address.toLowerCase();
  if (lower.startsWith(REGTEST.hrp + '1')) {
    if (address !== lower && address !== address.toUpperCase()) throw new InvalidAddress('mixed case');
    let decoded: { prefix: string; words: number[] } | undefined;
    let isBech32m = false;
    try {
      decoded = bech32.decode(lower as `${string}1${string}`, 90);
    } catch {
      decoded = bech32m.decode(lower as `${string}1${string}`, 90);
      isBech32m = true;
    }
    if (decoded.prefix !== REGTEST.hrp || decoded.words.length < 1) throw new InvalidAddress('wrong prefix');
    const version = decoded.words[0];
    if (version > 16) throw new InvalidAddress('bad witness version');
    if ((version === 0) === isBech32m) throw new InvalidAddress('wrong checksum variant');
    const program = bech32.fromWords(decoded.words.slice(1));
    if (program.length < 2 || program.length > 40) throw new InvalidAddress('bad program length');
    if (version === 0 && program.length !== 20 && program.length !== 32) throw new InvalidAddress('bad v0 program length');
    return concat([Uint8Array.of(version === 0 ? 0 : version + 0x50, program.length), program]);
  }
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    throw new InvalidAddress('not base58check');
  }
  if (payload.length !== 21) throw new InvalidAddress('bad length');
  const hash = payload.subarray(1);
  if (payload[0] === REGTEST.pubKeyHash) return concat([Uint8Array.of(OP_DUP, OP_HASH160, 20), hash, Uint8Array.of(OP_EQUALVERIFY, OP_CHECKSIG)]);
  if (payload[0] === REGTEST.scriptHash) return concat([Uint8Array.of(OP_HASH160, 20), hash, Uint8Array.of(OP_EQUAL)]);
  throw new InvalidAddress('unknown version byte');
}

export function isValidAddress(address: string): boolean {
  try {
    addressToScript(address);
    return true;
  } catch {
    return false;
  }
}

// Descriptor checksum (BIP380).
const INPUT_CHARSET = '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(symbols: number[]): bigint {
  let chk = 1n;
  for (const value of symbols) {
    const top = chk >> 35n;
    chk = ((chk & 0x7ffffffffn) << 5n) ^ BigInt(value);
    for (let i = 0; i < 5; i++) if ((top >> BigInt(i)) & 1n) chk ^= GENERATOR[i];
  }
  return chk;
}

export function descriptorWithChecksum(descriptor: string): string {
  const symbols: number[] = [];
  let groups: number[] = [];
  for (const char of descriptor) {
    const v = INPUT_CHARSET.indexOf(char);
    if (v < 0) return descriptor;
    symbols.push(v & 31);
    groups.push(v >> 5);
    if (groups.length === 3) {
      symbols.push(groups[0] * 9 + groups[1] * 3 + groups[2]);
      groups = [];
    }
  }
  if (groups.length === 1) symbols.push(groups[0]);
  if (groups.length === 2) symbols.push(groups[0] * 3 + groups[1]);
  const checksum = polymod([...symbols, 0, 0, 0, 0, 0, 0, 0, 0]) ^ 1n;
  let suffix = '';
  for (let i = 0; i < 8; i++) suffix += CHECKSUM_CHARSET[Number((checksum >> BigInt(5 * (7 - i))) & 31n)];
  return `${descriptor}#${suffix}`;
}

/** What Core's InferDescriptor gives for a bare output script (no wallet knowledge). */
export function inferDescriptor(script: Uint8Array): string {
  const type = classifyScript(script);
  if (type === 'pubkey') return descriptorWithChecksum(`pk(${toHex(script.subarray(1, script.length - 1))})`);
  if (type === 'witness_v1_taproot') return descriptorWithChecksum(`rawtr(${toHex(script.subarray(2))})`);
  const address = scriptToAddress(script);
  if (address) return descriptorWithChecksum(`addr(${address})`);
  return descriptorWithChecksum(`raw(${toHex(script)})`);
}

export interface ScriptPubKeyJson {
  asm: string;
  desc: string;
  hex: string;
  address?: string;
  type: ScriptType;
}

export function scriptPubKeyJson(script: Uint8Array): ScriptPubKeyJson {
  const address = scriptToAddress(script);
  return {
    asm: scriptToAsm(script),
    desc: inferDescriptor(script),
    hex: toHex(script),
    ...(address !== undefined ? { address } : {}),
    type: classifyScript(script),
  };
}
