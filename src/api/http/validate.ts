// Request validation with the reference implementation's error texts, so wallets see familiar messages.
import { badRequest } from './errors.ts';

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
