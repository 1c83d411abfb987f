// The contract checker for the devnet's LND REST face: each exchange is judged against LND's published REST
// swagger (test/fixtures/lnd/, lnrpc, invoicesrpc and routerrpc at v0.20.3-beta) and the grpc-gateway rules LND
// runs it with. Requests: the method and path must be an operation (path templates such as {r_hash} take one
// segment), every query parameter one the operation declares, every body field one of its request message (proto
// names; types as protojson reads them), and bytes in a path or query padded base64 (runtime.Bytes refuses
// anything else). Answers: a 2xx must validate against the operation's response schema as LND writes it — every
// field present (LND marshals with EmitUnpopulated), int64/uint64 as decimal strings, bytes as padded standard
// base64, enums by name, no field the swagger lacks; a stream message is one {"result": ...} or {"error": ...}
// (the swagger's "Stream result of ..." shape); an error body is the swagger's rpcStatus. The swagger is swagger 2.0,
// so its definitions are translated here to JSON Schema for ajv (no library does swagger 2.0 → JSON Schema for the
// two modes needed: what LND writes, and what LND reads).
import { readFileSync } from 'node:fs';
import type { Ajv, ValidateFunction } from 'ajv';
import { ajvClass } from './libraries.ts';
import type { NodeExchange } from '@ferry/devnet/contract-observer.js';
import type { ContractCheck, ContractChecker } from './checkers.ts';
import { runtimeBytes, protojsonBytes } from '@ferry/devnet/lightning/rest/go-base64.js';

type Swagger = {
  paths: Record<string, Record<string, Operation>>;
  definitions: Record<string, SwaggerSchema>;
};
type Operation = {
  operationId: string;
  parameters?: { name: string; in: 'path' | 'query' | 'body'; type?: string; format?: string; schema?: SwaggerSchema }[];
  responses: Record<string, { schema?: SwaggerSchema }>;
};
type SwaggerSchema = {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: string[];
  items?: SwaggerSchema;
  properties?: Record<string, SwaggerSchema>;
  additionalProperties?: SwaggerSchema | boolean;
  title?: string;
};
type JsonSchema = Record<string, unknown>;

const FILES = ['lightning', 'invoices', 'router'];
export const LND_SWAGGER_VERSION = 'v0.20.3-beta';

// Read and compiled on the first exchange: every process of a test run loads the checkers, and most (the `ferry`
// commands a test starts) never talk to a devnet LND.
let loaded: { swaggers: Swagger[]; definitions: Record<string, SwaggerSchema>; ajv: Ajv } | undefined;
function swaggerContract(): { swaggers: Swagger[]; definitions: Record<string, SwaggerSchema>; ajv: Ajv } {
  if (loaded !== undefined) return loaded;
  const swaggers: Swagger[] = FILES.map(
    (f) => JSON.parse(readFileSync(new URL(`../fixtures/lnd/${f}.swagger.json`, import.meta.url), 'utf8')) as Swagger,
  );
  const definitions: Record<string, SwaggerSchema> = {};
  for (const s of swaggers) for (const [name, def] of Object.entries(s.definitions)) definitions[name] ??= def;
  loaded = { swaggers, definitions, ajv: new (ajvClass())({ strict: false, allErrors: true }) };
  // protobufAny carries free fields beside "@type".
  const schemaDefinitions: Record<string, JsonSchema> = {};
  for (const mode of ['answer', 'request'] as Mode[]) {
    for (const [name, def] of Object.entries(definitions)) {
      schemaDefinitions[`${mode}.${name}`] =
        name === ANY ? { type: 'object', properties: { '@type': { type: 'string' } } } : translate(def, mode);
    }
  }
  loaded.ajv.addFormat('lnd-bytes-out', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  loaded.ajv.addFormat('lnd-bytes-in', { validate: (s: string) => protojsonBytes(s) !== undefined });
  loaded.ajv.addSchema({ $id: 'lnd', definitions: schemaDefinitions });
  return loaded;
}

type Mode = 'answer' | 'request';
const refName = (ref: string): string => ref.slice('#/definitions/'.length);
const isEnum = (name: string): boolean => swaggerContract().definitions[name]?.enum !== undefined;

// One swagger schema as JSON Schema, for what LND writes ('answer') or what it reads ('request').
function translate(schema: SwaggerSchema, mode: Mode): JsonSchema {
  if (schema.$ref !== undefined) {
    const ref = { $ref: `#/definitions/${mode}.${refName(schema.$ref)}` };
    // An unset message field is written as null (EmitUnpopulated); in a request, null means unset.
    return isEnum(refName(schema.$ref)) && mode === 'answer' ? ref : { anyOf: [ref, { type: 'null' }] };
  }
  if (schema.enum !== undefined) {
    const names = { type: 'string', enum: schema.enum };
    return mode === 'answer' ? names : { anyOf: [names, { type: 'integer' }] };
  }
  const integerText = { type: 'string', pattern: '^-?[0-9]+$' };
  switch (schema.type) {
    case 'array':
      return { type: 'array', items: translate(schema.items ?? {}, mode) };
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
      return mode === 'answer' ? { type: 'integer' } : { anyOf: [{ type: 'integer' }, integerText] };
    case 'number':
      return mode === 'answer' ? { type: 'number' } : { anyOf: [{ type: 'number' }, { type: 'string' }] };
    case 'string':
      if (schema.format === 'int64' || schema.format === 'uint64') {
        return mode === 'answer' ? integerText : { anyOf: [{ type: 'integer' }, integerText] };
      }
      if (schema.format === 'byte') return { type: 'string', format: mode === 'answer' ? 'lnd-bytes-out' : 'lnd-bytes-in' };
      return { type: 'string' };
    case 'object':
    case undefined: {
      if (schema.properties === undefined && typeof schema.additionalProperties === 'object') {
        return { type: 'object', additionalProperties: translate(schema.additionalProperties, mode) };
      }
      if (schema.properties === undefined && schema.additionalProperties === undefined && schema.type === undefined) {
        return {}; // protobufAny's free shape and the like
      }
      const properties = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, v]) => [k, translate(v, mode)]),
      );
      return {
        type: 'object',
        properties,
        additionalProperties: false,
        ...(mode === 'answer' ? { required: Object.keys(properties) } : {}),
      };
    }
    default:
      return {};
  }
}

const ANY = 'protobufAny';

const validators = new Map<string, ValidateFunction>();
function validatorFor(schema: SwaggerSchema, mode: Mode): ValidateFunction {
  const key = `${mode}:${JSON.stringify(schema)}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    const body = JSON.stringify(translate(schema, mode)).replaceAll('"#/definitions/', '"lnd#/definitions/');
    validate = swaggerContract().ajv.compile(JSON.parse(body) as JsonSchema);
    validators.set(key, validate);
  }
  return validate;
}

interface Found {
  method: string;
  template: string;
  operation: Operation;
  path: Record<string, string>;
}

function findOperation(method: string, pathname: string): Found | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  const segments = decoded.split('/');
  const lower = method.toLowerCase();
  for (const swagger of swaggerContract().swaggers) {
    for (const [template, operations] of Object.entries(swagger.paths)) {
      const operation = operations[lower];
      if (operation === undefined) continue;
      const parts = template.split('/');
      if (parts.length !== segments.length) continue;
      const path: Record<string, string> = {};
      const fits = parts.every((part, i) => {
        const name = /^\{(.+)\}$/.exec(part)?.[1];
        if (name === undefined) return part === segments[i];
        path[name] = segments[i];
        return segments[i] !== '';
      });
      if (fits) return { method, template, operation, path };
    }
  }
  return undefined;
}

// ajv's errors, less the noise of the "or null" a message field allows.
const errorsOf = (validate: ValidateFunction, where: string): string[] =>
  (validate.errors ?? [])
    .filter((e) => !(e.keyword === 'type' && e.params.type === 'null') && e.keyword !== 'anyOf')
    .map((e) => {
      const extra = 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : '';
      return `${where}${e.instancePath || '/'} ${e.message ?? 'is invalid'}${extra}`;
    });

function checkParam(name: string, value: string, param: { type?: string; format?: string }, where: string): string[] {
  if (param.format === 'byte') {
    try {
      runtimeBytes(value);
    } catch (err) {
      return [`${where} parameter ${name}=${value} is not padded base64 (grpc-gateway's runtime.Bytes: ${(err as Error).message})`];
    }
  }
  if (param.type === 'boolean' && !['true', 'false', '1', '0', 't', 'f', 'T', 'F', 'TRUE', 'FALSE', 'True', 'False'].includes(value)) {
    return [`${where} parameter ${name}=${value} is not a boolean`];
  }
  if ((param.format === 'uint64' || param.format === 'int64') && !/^-?[0-9]+$/.test(value)) {
    return [`${where} parameter ${name}=${value} is not an integer`];
  }
  return [];
}

export const checkLndExchange: ContractChecker = (exchange: NodeExchange): ContractCheck => {
  const found = findOperation(exchange.method, exchange.path);
  if (found === undefined && exchange.probe !== undefined) {
    // A deliberate call to what LND does not have: its answer must still be the gateway's error body.
    const validate = validatorFor({ $ref: '#/definitions/rpcStatus' }, 'answer');
    const ok = exchange.status >= 400 && validate(exchange.response);
    return { operation: undefined, violations: ok ? [] : [`the answer to ${exchange.method} ${exchange.path} is not an rpcStatus error`] };
  }
  if (found === undefined) {
    return { operation: undefined, violations: [`${exchange.method} ${exchange.path} is not an operation of LND's REST API (${LND_SWAGGER_VERSION})`] };
  }
  const operation = `${found.method} ${found.template}`;
  const violations: string[] = [];
  const answerOnly = exchange.probe !== undefined;
  const params = found.operation.parameters ?? [];
  for (const [name, value] of Object.entries(found.path)) {
    const param = params.find((p) => p.in === 'path' && p.name === name);
    if (param !== undefined) violations.push(...checkParam(name, value, param, 'path'));
  }
  for (const [name, values] of Object.entries(exchange.query)) {
    const param = params.find((p) => p.in === 'query' && p.name === name);
    if (param === undefined) {
      violations.push(`query parameter ${name} is not one ${operation} declares`);
      continue;
    }
    for (const value of values) violations.push(...checkParam(name, value, param, 'query'));
  }
  const bodyParam = params.find((p) => p.in === 'body');
  if (bodyParam?.schema !== undefined && exchange.request !== undefined) {
    const validate = validatorFor(bodyParam.schema, 'request');
    if (!validate(exchange.request)) violations.push(...errorsOf(validate, 'request body'));
  } else if (bodyParam === undefined && exchange.request !== undefined) {
    violations.push(`${operation} takes no body`);
  }
  if (answerOnly) violations.length = 0;
  const ok = found.operation.responses['200']?.schema;
  const failure = found.operation.responses.default?.schema ?? { $ref: '#/definitions/rpcStatus' };
  if (exchange.stream === true) {
    const message = exchange.response as { result?: unknown; error?: unknown } | null;
    const keys = message !== null && typeof message === 'object' ? Object.keys(message) : [];
    if (keys.length !== 1 || (keys[0] !== 'result' && keys[0] !== 'error')) {
      violations.push('a stream message must be one {"result": ...} or {"error": ...}');
    } else if (ok?.properties?.result === undefined) {
      violations.push(`${operation} is not a server stream`);
    } else {
      const schema = keys[0] === 'result' ? ok.properties.result : failure;
      const validate = validatorFor(schema, 'answer');
      if (!validate(keys[0] === 'result' ? message!.result : message!.error)) {
        violations.push(...errorsOf(validate, `stream ${keys[0]}`));
      }
    }
  } else if (exchange.status >= 200 && exchange.status < 300) {
    if (ok === undefined) violations.push(`${operation} has no 200 answer`);
    else if (ok.properties?.result !== undefined && ok.title?.startsWith('Stream result') === true) {
      violations.push(`${operation} is a server stream, answered as a unary call`);
    } else {
      const validate = validatorFor(ok, 'answer');
      if (!validate(exchange.response)) violations.push(...errorsOf(validate, 'answer'));
    }
  } else {
    const validate = validatorFor(failure, 'answer');
    if (!validate(exchange.response)) violations.push(...errorsOf(validate, `error answer (${exchange.status})`));
  }
  return { operation, violations };
};
