// v2 restore and rescue: POST /v2/swap/restore, /v2/swap/rescue (deprecated) and /v2/swap/restore/index. The body
// names the client keys (an xpub, one public key, a list) or, for restore only, an EVM address with its signed proof;
// its shape is checked against the schema served in the API document, the proof and the search are the engine's
// (a failed proof is the reference's 422).
import type { RescueRequest, RestoreRequest, SwapService } from '@ferry/sdk/protocol/index.js';
import { HttpError } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { documented } from '../schema/documented.ts';
import type { JsonSchema } from '../schema/validator.ts';
import { engineCall } from './swap-errors.ts';

const publicKey: JsonSchema = { type: 'string', pattern: '^0[23][0-9a-fA-F]{64}$' };

const xpubSearch: JsonSchema = {
  type: 'object',
  required: ['xpub'],
  additionalProperties: false,
  properties: {
    xpub: { type: 'string', minLength: 1, maxLength: 200, description: 'Extended public key whose children are searched' },
    derivationPath: { type: 'string', maxLength: 100, description: 'Unhardened path of the children, default m/44/0/0/0' },
    gapLimit: { type: 'integer', minimum: 1, maximum: 150, description: 'Unused indices in a row before the scan stops, default 50' },
    pagination: {
      type: 'object',
      required: ['startIndex', 'limit'],
      additionalProperties: false,
      properties: {
        startIndex: { type: 'integer', minimum: 0, maximum: 2 ** 31 - 1 },
        limit: { type: 'integer', minimum: 1, maximum: 1000 },
      },
    },
  },
};
const keySearch: JsonSchema = { type: 'object', required: ['publicKey'], additionalProperties: false, properties: { publicKey } };
const keysSearch: JsonSchema = {
  type: 'object',
  required: ['publicKeys'],
  additionalProperties: false,
  properties: { publicKeys: { type: 'array', minItems: 1, maxItems: 1000, items: publicKey } },
};
const evmSearch: JsonSchema = {
  type: 'object',
  required: ['address', 'timestamp', 'signature'],
  additionalProperties: false,
  properties: {
    address: { type: 'string', pattern: '^(0x)?[a-fA-F0-9]{40}$', description: 'EVM address (checksummed or lower case) whose swaps are searched' },
    timestamp: { type: 'integer', description: 'UNIX seconds in the signed message, within 60 s of the server clock' },
    signature: {
      type: 'string',
      pattern: '^(0x)?[a-fA-F0-9]{130}$',
      description: 'EIP-191 personal_sign by the address of "Boltz swap restore\\naddress: <EIP-55 address>\\ntimestamp: <timestamp>"',
    },
  },
};

/** The key-only calls take an address body too, to refuse it as the reference does: a 422, not a malformed body. */
const keyOnlyRequestSchema: JsonSchema = { oneOf: [xpubSearch, keySearch, keysSearch, evmSearch] };
const keysOnly = (body: RestoreRequest): RescueRequest => {
  if ('address' in body) throw new HttpError(422, 'address lookup is only supported for restore');
  return body;
};
export const restoreRequestSchema: JsonSchema = { oneOf: [xpubSearch, keySearch, keysSearch, evmSearch] };
const oneOfHint = 'give exactly one of xpub, publicKey or publicKeys';
const restoreHint = 'give exactly one of xpub, publicKey, publicKeys or address (with timestamp and signature)';

const unsupported = (what: string) => new HttpError(501, `the swap engine does not serve ${what}`);

/** Keys as the index holds them: lower-case hex. */
function normalized<T extends RestoreRequest>(request: T): T;
function normalized(request: RestoreRequest): RestoreRequest {
  if ('publicKey' in request) return { publicKey: request.publicKey.toLowerCase() };
  if ('publicKeys' in request) return { publicKeys: request.publicKeys.map((key) => key.toLowerCase()) };
  return request;
}

export function restoreRoutes(router: Router, swaps: SwapService): void {
  const tags = ['Swap'];
  documented<RestoreRequest>(
    router,
    'POST',
    '/v2/swap/restore',
    {
      summary: 'Every swap created with these client keys, or naming this EVM address (proven by its signature), with what it takes to resume, claim or refund it',
      tags,
      body: restoreRequestSchema,
      oneOfHint: restoreHint,
    },
    async (_request, body) => {
      if (!swaps.restoreSwaps) throw unsupported('restore');
      return { body: await engineCall(() => swaps.restoreSwaps!(normalized(body))) };
    },
  );
  documented<RestoreRequest>(
    router,
    'POST',
    '/v2/swap/rescue',
    { summary: 'Deprecated (use /v2/swap/restore): the submarine and chain swaps of these keys that can be refunded', tags, body: keyOnlyRequestSchema, oneOfHint, deprecated: true },
    async (_request, body) => {
      if (!swaps.rescueSwaps) throw unsupported('rescue');
      return { body: await engineCall(() => swaps.rescueSwaps!(normalized(keysOnly(body)))) };
    },
  );
  documented<RestoreRequest>(
    router,
    'POST',
    '/v2/swap/restore/index',
    { summary: 'The highest derivation index of these keys any swap used, -1 when none', tags, body: keyOnlyRequestSchema, oneOfHint },
    async (_request, body) => {
      if (!swaps.restoreIndex) throw unsupported('restore');
      return { body: await engineCall(() => swaps.restoreIndex!(normalized(keysOnly(body)))) };
    },
  );
}
