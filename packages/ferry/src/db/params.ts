// Both drivers get the same primitive values, so a parameter means the same thing on either dialect.
import type { SqlValue } from './types.ts';

export type DriverValue = string | number | bigint | null | Buffer;

export function normalizeParams(params: readonly SqlValue[] | undefined): DriverValue[] {
  if (!params) return [];
  return params.map((value) => {
    if (value === undefined || value === null) return null;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
      return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
    return value as DriverValue;
  });
}
