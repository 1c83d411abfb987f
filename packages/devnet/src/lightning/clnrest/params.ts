// Reading a JSON-RPC call's named parameters, refused as lightningd refuses them: code -32602 and the
// parameter's name in the message.
import { invalidParams } from './errors.ts';

export type Params = Record<string, unknown>;

export function optionalString(params: Params, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidParams(`${name}: should be a string: invalid token '${JSON.stringify(value)}'`);
  return value;
}

export function requiredString(params: Params, name: string): string {
  const value = optionalString(params, name);
  if (value === undefined) throw invalidParams(`missing required parameter: ${name}`);
  return value;
}

export function optionalHash(params: Params, name: string): string | undefined {
  const value = optionalString(params, name);
  if (value !== undefined && !/^[0-9a-fA-F]{64}$/.test(value)) throw invalidParams(`${name}: should be a 32 byte hex value`);
  return value?.toLowerCase();
}

export function requiredHash(params: Params, name: string): string {
  const value = optionalHash(params, name);
  if (value === undefined) throw invalidParams(`missing required parameter: ${name}`);
  return value;
}

/** A non-negative integer, given as a number or a decimal string (msat amounts may carry an `msat` suffix). */
export function optionalInt(params: Params, name: string): number | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.replace(/msat$/, '') : '';
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) throw invalidParams(`${name}: should be an unsigned 64 bit integer: invalid token '${JSON.stringify(value)}'`);
  return n;
}

export function requiredInt(params: Params, name: string): number {
  const value = optionalInt(params, name);
  if (value === undefined) throw invalidParams(`missing required parameter: ${name}`);
  return value;
}
