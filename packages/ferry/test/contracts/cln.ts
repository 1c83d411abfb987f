// The contract of the devnet's `clnrest` face: Core Lightning's published JSON schemas (doc/schemas at v26.06.6,
// vendored in test/fixtures/cln/) for lightningd's methods, and the hold plugin's RPC methods (v0.3.3, derived from its
// sources into test/fixtures/hold/rpc-methods.json). An exchange violates it when the method is in neither, a
// parameter is not in the method's request schema or a required one is missing, or a success answer does not
// validate against the response schema (an error answer must be lightningd's {code, message}).
//
// The schemas use lightningd's own type names (u64, msat, hex, pubkey, short_channel_id, …) as CLN's test harness
// extends its validator with them; here each is rewritten to the JSON Schema type it stands for before ajv compiles
// it, and bigints (64-bit integers the devnet answers losslessly) are validated as the integers they are.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ajv, ValidateFunction } from 'ajv';
import { ajvClass } from './libraries.ts';
import type { NodeExchange } from '@ferry/devnet/contract-observer.js';
import type { ContractCheck } from './checkers.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const HEX = '^([0-9a-fA-F]{2})*$';
const INTEGER = { type: 'integer', minimum: 0 };
const HEX_STRING = (bytes?: number) => ({ type: 'string', pattern: bytes === undefined ? HEX : `^[0-9a-fA-F]{${bytes * 2}}$` });

// lightningd's type names (contrib/pyln-testing's extended validator) as plain JSON Schema
const CLN_TYPES: Record<string, object> = {
  u64: INTEGER,
  u32: INTEGER,
  u16: INTEGER,
  u8: INTEGER,
  msat: INTEGER,
  msat_or_any: { anyOf: [INTEGER, { type: 'string', enum: ['any'] }] },
  hex: HEX_STRING(),
  hash: HEX_STRING(32),
  secret: HEX_STRING(32),
  txid: HEX_STRING(32),
  pubkey: HEX_STRING(33),
  signature: HEX_STRING(),
  bip340sig: HEX_STRING(64),
  short_channel_id: { type: 'string', pattern: '^[0-9]+x[0-9]+x[0-9]+$' },
  short_channel_id_dir: { type: 'string', pattern: '^[0-9]+x[0-9]+x[0-9]+/[01]$' },
  feerate: { anyOf: [{ type: 'string' }, INTEGER] },
  outpoint: { type: 'string', pattern: '^[0-9a-fA-F]{64}:[0-9]+$' },
};
const STANDARD = new Set(['object', 'array', 'string', 'boolean', 'number', 'integer', 'null']);

/** A schema with lightningd's type names replaced and its annotations that are not JSON Schema dropped. */
function plainSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(plainSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  let extra: object | undefined;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === 'added' || key === 'deprecated' || key === 'hidden' || key === 'dependentUpon') continue;
    if (key === 'description' || key === 'title' || key === 'rpc' || key === 'categories') continue;
    if (key === 'type' && typeof value === 'string' && !STANDARD.has(value)) {
      extra = CLN_TYPES[value] ?? { type: 'string' }; // bolt11, invoice, rune, currency, …: strings
      continue;
    }
    out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, plainSchema(v)])) : plainSchema(value);
  }
  return extra === undefined ? out : { ...out, allOf: [...((out.allOf as object[]) ?? []), extra] };
}

interface MethodContract {
  source: string; // where the contract of the method comes from
  params: string[];
  required: string[];
  response: ValidateFunction;
}

let ajv: Ajv | undefined;

function methodContract(source: string, schema: { request?: { properties?: object; required?: string[] }; response?: object }): MethodContract {
  return {
    source,
    params: Object.keys(schema.request?.properties ?? {}),
    required: schema.request?.required ?? [],
    response: (ajv ??= new (ajvClass())({ strict: false, allErrors: true })).compile(plainSchema(schema.response ?? {}) as object),
  };
}

function loadContract(): Map<string, MethodContract> {
  const methods = new Map<string, MethodContract>();
  for (const file of readdirSync(join(FIXTURES, 'cln')).filter((f) => f.endsWith('.json'))) {
    const schema = JSON.parse(readFileSync(join(FIXTURES, 'cln', file), 'utf8')) as { rpc: string; request?: { properties?: object; required?: string[] }; response?: object };
    methods.set(schema.rpc, methodContract('lightningd v26.06.6', schema));
  }
  const hold = JSON.parse(readFileSync(join(FIXTURES, 'hold', 'rpc-methods.json'), 'utf8')) as { methods: Record<string, object> };
  for (const [name, schema] of Object.entries(hold.methods)) methods.set(name, methodContract('hold v0.3.3', schema));
  return methods;
}

let contract: Map<string, MethodContract> | undefined;
/** lightningd's and the hold plugin's methods, each with its parameters and answer schema. */
export const clnContract = (): Map<string, MethodContract> => (contract ??= loadContract());

/** JSON as the daemon wrote it: a bigint (a u64 read losslessly) is the integer it is. */
const asParsedJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));

// lightningd's refusals of a call it does not know or whose parameters do not parse, and the plugins' (-32700)
const METHOD_NOT_FOUND = -32601;
const REFUSED_PARAMS = new Set([-32602, -32700]);

const codeOf = (answer: unknown): unknown => (answer as { code?: unknown } | null)?.code;

/**
 * What of one clnrest exchange the contract does not allow. A call the real node refuses (an unknown method answered
 * -32601, parameters answered -32602 / -32700) conforms when the devnet refused it alike; what the devnet accepted
 * must be what the real node accepts and does not ignore.
 */
export function checkClnrest(exchange: NodeExchange): ContractCheck {
  const answer = asParsedJson(exchange.response);
  const ok = exchange.status >= 200 && exchange.status < 300;
  const method = clnContract().get(exchange.method);
  if (method === undefined) {
    if (!ok && codeOf(answer) === METHOD_NOT_FOUND) return { operation: 'clnrest (unknown command refused)', violations: [] };
    return { operation: undefined, violations: [`clnrest ${exchange.method}: neither lightningd (v26.06.6) nor the hold plugin (v0.3.3) has this method`] };
  }
  const violations: string[] = [];
  const params = (exchange.request ?? {}) as Record<string, unknown>;
  const refusedParams = !ok && REFUSED_PARAMS.has(codeOf(answer) as number);
  if (!refusedParams) {
    for (const name of Object.keys(params)) {
      if (!method.params.includes(name)) violations.push(`${exchange.method}: parameter ${name} is not in its request schema (${method.source})`);
    }
    for (const name of method.required) {
      if (params[name] === undefined) violations.push(`${exchange.method}: required parameter ${name} is missing`);
    }
  }
  if (ok) {
    if (!method.response(answer)) {
      const errors = (method.response.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
      violations.push(`${exchange.method}: the answer does not match its response schema (${method.source}): ${errors.slice(0, 5).join('; ')}`);
    }
  } else {
    const error = answer as { code?: unknown; message?: unknown };
    if (typeof error?.code !== 'number' || !Number.isInteger(error.code) || typeof error.message !== 'string') {
      violations.push(`${exchange.method}: an error answer must be a JSON-RPC error {code, message}`);
    }
  }
  return { operation: `clnrest ${exchange.method}`, violations };
}
