// Semantic checks of request values the API already checked for shape (hex, lengths).
import { hex } from '@scure/base';
import { SwapError } from '@ferry/sdk/protocol/index.js';
import { invalidParameter, invalidPreimageHashLength, undefinedParameter } from '@ferry/sdk/protocol/index.js';
import { isCompressedPoint } from '../keys/libsecp256k1.ts';

const HEX = /^([0-9a-fA-F]{2})*$/;

export function hexBytes(value: unknown, name: string): Uint8Array {
  if (value === undefined || value === null) throw undefinedParameter(name);
  if (typeof value !== 'string') throw invalidParameter(name);
  if (!HEX.test(value)) throw new SwapError('invalid', `could not parse hex string: ${value}`);
  return hex.decode(value.toLowerCase());
}

/** A 33-byte compressed key that is a point on the curve. */
export function publicKey(value: unknown, name: string): Uint8Array {
  const bytes = hexBytes(value, name);
  if (!isCompressedPoint(bytes)) throw invalidParameter(name);
  return bytes;
}

export function preimageHash(value: unknown): Uint8Array {
  const bytes = hexBytes(value, 'preimageHash');
  if (bytes.length !== 32) throw invalidPreimageHashLength(bytes.length);
  return bytes;
}

export function positiveInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw invalidParameter(name);
  return value;
}
