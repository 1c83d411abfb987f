// Request validation with the reference implementation's error texts, so wallets see familiar messages.
import { isCompressedPoint } from '../../keys/libsecp256k1.ts';
import { SWAP_ID_ALPHABET, SWAP_ID_LENGTH } from '../../swaps/ids.ts';
import { badRequest, notFound } from './errors.ts';

export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined) throw badRequest('request body is missing');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('request body must be a JSON object');
  return body as Record<string, unknown>;
}

export function requireString(input: Record<string, unknown>, name: string): string {
  const value = input[name];
  if (value === undefined || value === null) throw badRequest(`undefined parameter: ${name}`);
  if (typeof value !== 'string' || value === '') throw badRequest(`invalid parameter: ${name}`);
  return value;
}

const hexPattern = /^(?:[0-9a-fA-F]{2})+$/;

export function requireHex(input: Record<string, unknown>, name: string): string {
  const value = requireString(input, name);
  if (!hexPattern.test(value)) throw badRequest(`could not parse hex string: ${name}`);
  return value.toLowerCase();
}

const txidPattern = /^[0-9a-fA-F]{64}$/;

export function requireTxid(value: string, name: string): string {
  if (!txidPattern.test(value)) throw badRequest(`invalid parameter: ${name}`);
  return value.toLowerCase();
}

/** An optional string field: absent (undefined or null) gives undefined, anything but a non-empty string is refused. */
export function optionalString(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') throw badRequest(`invalid parameter: ${name}`);
  return value;
}

/** A boolean flag of the body, or undefined; anything else is a 400. */
export function optionalBoolean(input: Record<string, unknown>, name: string): boolean | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw badRequest(`invalid parameter: ${name}`);
  return value;
}

/** Hex of exactly `bytes` bytes; a wrong length is an invalid parameter. */
export function requireHexBytes(input: Record<string, unknown>, name: string, bytes: number): string {
  const hex = requireHex(input, name);
  if (hex.length !== bytes * 2) throw badRequest(`invalid parameter: ${name}`);
  return hex;
}

export function requirePreimageHash(input: Record<string, unknown>, name = 'preimageHash'): string {
  const hex = requireHex(input, name);
  if (hex.length !== 64) throw badRequest(`invalid preimage hash length: ${hex.length / 2}`);
  return hex;
}

/** A 33-byte compressed secp256k1 point; checked on the curve here so no malformed key reaches the key code. */
export function requirePublicKey(input: Record<string, unknown>, name: string): string {
  const hex = requireHexBytes(input, name, 33);
  if (!isCompressedPoint(Buffer.from(hex, 'hex'))) throw badRequest(`invalid parameter: ${name}`);
  return hex;
}

/** MuSig2 public nonces are two compressed points: 66 bytes. */
export const requirePubNonce = (input: Record<string, unknown>, name = 'pubNonce') => requireHexBytes(input, name, 66);
export const requirePartialSignature = (input: Record<string, unknown>, name = 'partialSignature') =>
  requireHexBytes(input, name, 32);
export const requirePreimage = (input: Record<string, unknown>, name = 'preimage') => requireHexBytes(input, name, 32);

function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** An optional satoshi amount: a positive safe integer. */
export function optionalAmount(input: Record<string, unknown>, name: string): number | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (!isAmount(value)) throw badRequest(`invalid parameter: ${name}`);
  return value;
}

/** A transaction input index: a non-negative integer below 2^32. */
export function requireIndex(input: Record<string, unknown>, name = 'index'): number {
  const value = input[name];
  if (value === undefined || value === null) throw badRequest(`undefined parameter: ${name}`);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw badRequest(`invalid parameter: ${name}`);
  }
  return value;
}

// Exactly the ids the engine hands out: anything else cannot name a swap and never reaches a lookup.
const swapIdPattern = new RegExp(`^[${SWAP_ID_ALPHABET}]{${SWAP_ID_LENGTH}}$`);
const longestEchoedId = 64;

export const isSwapId = (value: string): boolean => swapIdPattern.test(value);

/**
 * A swap id from a path, query or body. A well-formed id goes to the engine, which answers 404 when it does not
 * know it; anything that cannot be an id gets the same 404 without a lookup, and an absurdly long one a 400 so
 * the answer never echoes kilobytes of input.
 */
export function requireSwapId(value: string, name = 'id'): string {
  if (value.length > longestEchoedId) throw badRequest(`invalid parameter: ${name}`);
  if (!isSwapId(value)) throw notFound(swapNotFound(value));
  return value;
}

export const swapNotFound = (id: string) => `could not find swap with id: ${id}`;
