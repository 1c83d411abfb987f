// The contract of the devnet's `hold-grpc` face: the hold plugin's own hold.proto (v0.3.3, vendored in
// test/fixtures/hold/). An exchange violates it when the rpc is not in the plugin's `Hold` service, or its request or
// answer (each message of a stream) carries a field the plugin's message does not have — fields proto-loader would
// drop on the wire, so the devnet would believe it answers what no real plugin sends. Ferry's own copy of the proto
// is checked against this one field by field (cln.test.ts), so Ferry cannot send such a field.
import { join } from 'node:path';
import type { PackageDefinition } from '@grpc/proto-loader';
import { protoLoader } from './libraries.ts';
import type { NodeExchange } from '@ferry/devnet/contract-observer.js';
import type { ContractCheck } from './checkers.ts';

interface Descriptor {
  field: { name: string; type: string; typeName: string }[];
  oneofDecl: { name: string }[];
}

let proto: PackageDefinition | undefined;
const holdProto = (): PackageDefinition =>
  (proto ??= protoLoader().loadSync(join(import.meta.dirname, '..', 'fixtures', 'hold', 'hold.proto'), { keepCase: true, oneofs: true }));

const messageOf = (name: string): Descriptor | undefined => (holdProto()[`hold.${name}`] as { type?: Descriptor } | undefined)?.type;

/** Field names of `value` that message `name` does not have, nested messages included (as paths). */
function unknownFields(name: string, value: unknown, path: string): string[] {
  const message = messageOf(name);
  if (message === undefined || value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return [];
  const known = new Map(message.field.map((f) => [f.name, f]));
  const oneofs = new Set(message.oneofDecl.map((o) => o.name));
  const out: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const field = known.get(key);
    if (field === undefined) {
      if (!oneofs.has(key)) out.push(`${path}${key}`);
      continue;
    }
    if (field.type !== 'TYPE_MESSAGE') continue;
    for (const [i, item] of (Array.isArray(inner) ? inner : [inner]).entries()) {
      out.push(...unknownFields(field.typeName, item, `${path}${key}${Array.isArray(inner) ? `[${i}]` : ''}.`));
    }
  }
  return out;
}

export function checkHoldGrpc(exchange: NodeExchange): ContractCheck {
  const service = holdProto()['hold.Hold'] as Record<string, { requestType: { type: { name: string } }; responseType: { type: { name: string } } }>;
  const rpc = service[exchange.method];
  if (rpc === undefined) return { operation: undefined, violations: [`hold-grpc ${exchange.method}: the plugin's Hold service (v0.3.3) has no such rpc`] };
  const violations = [
    ...unknownFields(rpc.requestType.type.name, exchange.request, '').map((f) => `${exchange.method}: request field ${f} is not in ${rpc.requestType.type.name}`),
    ...(exchange.status === 0
      ? unknownFields(rpc.responseType.type.name, exchange.response, '').map((f) => `${exchange.method}: answer field ${f} is not in ${rpc.responseType.type.name}`)
      : []),
  ];
  return { operation: `hold-grpc ${exchange.method}`, violations };
}
