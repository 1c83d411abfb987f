// RPC method definitions and Core's argument handling: positional or named parameters, type checks with
// Core's texts ("JSON value of type string is not of expected type number"), hashes and amounts.
import { AmountError, parseAmount } from '../amount.ts';
import { isHex } from '../bytes.ts';
import type { NodeCallContext } from '../../common/wallet-rpc.ts';
import type { BitcoinNode } from '../node.ts';
import type { Wallet } from '../wallet/wallet.ts';
import type { WalletManager } from '../wallet/manager.ts';
import { RpcFailure, RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RPC_TYPE_ERROR } from './errors.ts';

export type ParamType = 'number' | 'string' | 'bool' | 'array' | 'object' | 'amount' | 'numOrBool' | 'any';

export interface ParamSpec {
  name: string;
  type: ParamType;
  required?: boolean;
}

export type CallContext = NodeCallContext<BitcoinNode, WalletManager, Wallet>;

/** A method; its context defaults to the Bitcoin node's (the Elements node passes its own). */
export interface Method<C = CallContext> {
  params: ParamSpec[];
  run(args: unknown[], ctx: C): unknown;
}

export type MethodTable<C = CallContext> = Record<string, Method<C>>;

function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

function accepts(type: ParamType, value: unknown): boolean {
  const actual = typeName(value);
  switch (type) {
    case 'any':
      return true;
    case 'amount':
      return actual === 'number' || actual === 'string';
    case 'numOrBool':
      return actual === 'number' || actual === 'bool';
    default:
      return actual === type;
  }
}

const expectedName = (type: ParamType): string => (type === 'amount' || type === 'numOrBool' ? 'number' : type === 'any' ? 'string' : type);

function usage(name: string, params: ParamSpec[]): string {
  const args = params.map((p) => (p.required ? p.name : `( ${p.name} )`)).join(' ');
  return `${name} ${args}`.trim();
}

/** Turns the request's params (array or object) into positional arguments, checked against the spec. */
export function bindParams(name: string, method: { params: ParamSpec[] }, raw: unknown): unknown[] {
  let args: unknown[];
  if (raw === undefined || raw === null) args = [];
  else if (Array.isArray(raw)) args = raw;
  else {
    const named = raw as Record<string, unknown>;
    args = [];
    for (const key of Object.keys(named)) {
      const index = method.params.findIndex((p) => p.name === key);
      if (index < 0) throw new RpcFailure(RPC_INVALID_PARAMETER, `Unknown named parameter ${key}`);
      args[index] = named[key];
    }
  }
  const required = method.params.filter((p) => p.required).length;
  if (args.length > method.params.length || args.slice(0, required).some((a) => a === undefined) || args.length < required) {
    throw new RpcFailure(RPC_MISC_ERROR, usage(name, method.params));
  }
  method.params.forEach((spec, i) => {
    const value = args[i];
    if (value === undefined || value === null) {
      if (spec.required) throw new RpcFailure(RPC_TYPE_ERROR, `JSON value of type null is not of expected type ${expectedName(spec.type)}`);
      args[i] = undefined;
      return;
    }
    if (!accepts(spec.type, value)) {
      throw new RpcFailure(RPC_TYPE_ERROR, `JSON value of type ${typeName(value)} is not of expected type ${expectedName(spec.type)}`);
    }
  });
  return args;
}

/** Core's ParseHashV. */
export function parseHash(value: unknown, name: string): string {
  const text = String(value);
  if (text.length !== 64) throw new RpcFailure(RPC_INVALID_PARAMETER, `${name} must be of length 64 (not ${text.length}, for '${text}')`);
  if (!isHex(text)) throw new RpcFailure(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${text}')`);
  return text.toLowerCase();
}

export function amountArg(value: unknown): bigint {
  try {
    return parseAmount(value);
  } catch (error) {
    if (error instanceof AmountError) throw new RpcFailure(RPC_TYPE_ERROR, error.message);
    throw error;
  }
}

/** verbose/verbosity arguments that accept a bool or a number. */
export function verbosityArg(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as number;
}

export function integerArg(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new RpcFailure(RPC_TYPE_ERROR, `${name} must be an integer`);
  return value;
}
