// Reading LND-style request values: proto3 JSON lets 64-bit integers arrive as numbers or strings, and bytes
// arrive as base64 (standard or URL-safe). For 32-byte hashes hex is accepted too, since a 64-character hex
// string can never be the base64 of 32 bytes.
import { GRPC, LndError } from '../errors.ts';

export type Body = Record<string, unknown>;

export function intField(body: Body, name: string): number {
  const value = body[name];
  if (value === undefined || value === null || value === '') return 0;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new LndError(GRPC.INVALID_ARGUMENT, `invalid value for field ${name}`);
  return n;
}

export function stringField(body: Body, name: string): string {
  const value = body[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new LndError(GRPC.INVALID_ARGUMENT, `invalid value for field ${name}`);
  return value;
}

export function boolField(body: Body, name: string): boolean {
  const value = body[name];
  return value === true || value === 'true';
}

// Returns hex ('' when the field is absent).
export function bytesField(body: Body, name: string, expectedLength?: number): string {
  const value = stringField(body, name);
  if (value === '') return '';
  return bytesFromText(value, name, expectedLength);
}

export function bytesFromText(value: string, name: string, expectedLength?: number): string {
  if (expectedLength === 32 && /^[0-9a-fA-F]{64}$/.test(value)) return value.toLowerCase();
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) {
    throw new LndError(GRPC.INVALID_ARGUMENT, `bad base64 in field ${name}`);
  }
  const bytes = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (expectedLength !== undefined && bytes.length !== expectedLength) {
    throw new LndError(GRPC.INVALID_ARGUMENT, `${name} must be ${expectedLength} bytes`);
  }
  return bytes.toString('hex');
}
