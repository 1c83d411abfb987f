// Reading LND REST request values once the gateway's rules have let them in: a body decoded by protojson.ts (types
// already checked: 64-bit integers as numbers or strings, bytes as base64 of any of protojson's forms), and path and
// query parameters decoded as grpc-gateway does (bytes through runtime.Bytes: padded base64 only).
import { GRPC, LndError } from '../errors.ts';
import { protojsonBytes, runtimeBytes } from './go-base64.ts';

export type Body = Record<string, unknown>;

export function intField(body: Body, name: string): number {
  const value = body[name];
  if (value === undefined || value === null || value === '') return 0;
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new LndError(GRPC.INVALID_ARGUMENT, `invalid value for field ${name}`);
  return n;
}

export function stringField(body: Body, name: string): string {
  const value = body[name];
  return typeof value === 'string' ? value : '';
}

export function boolField(body: Body, name: string): boolean {
  return body[name] === true;
}

/** A bytes field as hex ('' when absent or empty, as proto3 has no other empty). */
export function bytesField(body: Body, name: string): string {
  const value = stringField(body, name);
  return value === '' ? '' : (protojsonBytes(value) ?? Buffer.alloc(0)).toString('hex');
}

// LND's lntypes.MakeHash / MakePreimage: exactly 32 bytes.
export function hash32(hex: string, what: 'hash' | 'preimage' = 'hash'): string {
  if (hex.length !== 64) {
    throw new LndError(GRPC.UNKNOWN, `invalid ${what} length of ${hex.length / 2}, want 32`);
  }
  return hex;
}

/** The kinds of path and query parameters the devnet's routes declare (the swagger's type and format). */
export type ParamKind = 'bytes' | 'string' | 'bool' | 'uint64';

// grpc-gateway's parse of one path or query value, with its error texts (code 3, HTTP 400): a path parameter's
// failure reads "type mismatch, parameter: NAME, error: ...", a query parameter's "parsing field \"NAME\": ...".
export function parseParam(name: string, value: string, kind: ParamKind, where: 'path' | 'query'): string {
  const fail = (err: string): never => {
    throw new LndError(
      GRPC.INVALID_ARGUMENT,
      where === 'path' ? `type mismatch, parameter: ${name}, error: ${err}` : `parsing field "${name}": ${err}`,
    );
  };
  switch (kind) {
    case 'bytes':
      try {
        return runtimeBytes(value).toString('hex');
      } catch (err) {
        return fail((err as Error).message);
      }
    case 'bool':
      if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return 'true';
      if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return 'false';
      return fail(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    case 'uint64':
      if (!/^\d+$/.test(value)) return fail(`strconv.ParseUint: parsing ${JSON.stringify(value)}: invalid syntax`);
      if (BigInt(value) >= 2n ** 64n) return fail(`strconv.ParseUint: parsing ${JSON.stringify(value)}: value out of range`);
      return BigInt(value).toString();
    default:
      return value;
  }
}
