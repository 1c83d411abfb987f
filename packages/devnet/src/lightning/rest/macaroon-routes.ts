// The devnet LND's macaroon calls, as lnd's rpcserver.go answers them: BakeMacaroon (POST /v1/macaroon),
// ListPermissions (GET /v1/macaroon/permissions) and CheckMacaroonPermissions (POST /v1/macaroon/checkpermissions),
// and the check every request passes first (the interceptor's: a valid macaroon of this node granting the method's
// permissions, else code 2 "permission denied"). Kept apart from routes.ts, which serves the node's payments.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { GRPC, LndError } from '../errors.ts';
import { allows, bakeMacaroon, decodeMacaroon, verifySignature, type DecodedMacaroon, type MacaroonOp } from './macaroons.ts';
import { METHOD_PERMISSIONS } from './permissions.ts';
import { boolField, bytesField, intField, stringField, type Body } from './request.ts';
import type { Route } from './routes.ts';
import type { Handler, RestContext } from './server.ts';

const VALID_ENTITIES = ['onchain', 'offchain', 'address', 'message', 'peers', 'info', 'invoices', 'signer', 'macaroon', 'uri'];
const VALID_ACTIONS = ['read', 'write', 'generate'];
const HELP = `supported actions are [${VALID_ACTIONS.join(' ')}], supported entities are [${VALID_ENTITIES.join(' ')}]`;

const SIGNATURE_MISMATCH = 'verification failed: signature mismatch after caveat verification';

function opsOf(body: Body, name: string): MacaroonOp[] {
  const list = body[name] ?? [];
  if (!Array.isArray(list)) throw new LndError(GRPC.INVALID_ARGUMENT, `invalid value for field ${name}`);
  return list.map((item) => {
    const entry = (item ?? {}) as Body;
    return { entity: stringField(entry, 'entity'), action: stringField(entry, 'action') };
  });
}

/** Decodes and verifies a macaroon of this node; throws LND's message for one it did not issue. */
function verified(secret: string, bytes: Buffer): DecodedMacaroon {
  let mac: DecodedMacaroon;
  try {
    mac = decodeMacaroon(bytes);
  } catch (err) {
    throw new LndError(GRPC.UNKNOWN, (err as Error).message);
  }
  if (!verifySignature(secret, mac)) throw new LndError(GRPC.UNKNOWN, SIGNATURE_MISMATCH);
  return mac;
}

/**
 * The interceptor's check of a request to `fullMethod`: LND answers a missing macaroon, one it did not bake and
 * one without the method's permissions with gRPC code 2 (HTTP 500).
 */
export function authorize(req: IncomingMessage, secret: string, fullMethod: string | undefined): void {
  const header = req.headers['grpc-metadata-macaroon'];
  const given = Array.isArray(header) ? header[0] : header;
  if (given === undefined || given === '') throw new LndError(GRPC.UNKNOWN, 'expected 1 macaroon, got 0');
  const bad = /[^0-9a-fA-F]/.exec(given);
  // Go's hex.DecodeString, as LND decodes the header
  if (bad !== null) {
    const code = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw new LndError(GRPC.UNKNOWN, `encoding/hex: invalid byte: U+${code} '${bad[0]}'`);
  }
  if (given.length % 2 === 1) throw new LndError(GRPC.UNKNOWN, 'encoding/hex: odd length hex string');
  const mac = verified(secret, Buffer.from(given, 'hex'));
  if (fullMethod === undefined) return;
  if (!allows(mac, METHOD_PERMISSIONS[fullMethod] ?? [], fullMethod)) throw new LndError(GRPC.UNKNOWN, 'permission denied');
}

const secretOf = ({ network, node }: RestContext): string => network.node(node).macaroon;

const bake: Handler = {
  kind: 'unary',
  run: (ctx) => {
    const permissions = opsOf(ctx.body, 'permissions');
    if (permissions.length === 0) {
      throw new LndError(GRPC.UNKNOWN, `permission list cannot be empty. specify at least one action/entity pair. ${HELP}`);
    }
    if (!boolField(ctx.body, 'allow_external_permissions')) {
      for (const { entity, action } of permissions) {
        if (!VALID_ENTITIES.includes(entity)) throw new LndError(GRPC.UNKNOWN, `invalid permission entity. ${HELP}`);
        if (entity === 'uri') {
          if (METHOD_PERMISSIONS[action] === undefined) {
            throw new LndError(GRPC.UNKNOWN, 'invalid permission action, must be an existing URI in the format /package.Service/MethodName');
          }
        } else if (!VALID_ACTIONS.includes(action)) throw new LndError(GRPC.UNKNOWN, `invalid permission action. ${HELP}`);
      }
    }
    const rootKeyId = intField(ctx.body, 'root_key_id');
    if (rootKeyId < 0) throw new LndError(GRPC.INVALID_ARGUMENT, 'invalid value for field root_key_id');
    // A fresh nonce per bake, as the oven's; the root key of the id is the node's, derived.
    const nonce = randomBytes(16);
    return { macaroon: bakeMacaroon(secretOf(ctx), permissions, String(rootKeyId), nonce) };
  },
};

const listPermissions: Handler = {
  kind: 'unary',
  run: () => ({
    method_permissions: Object.fromEntries(
      Object.entries(METHOD_PERMISSIONS).map(([method, permissions]) => [method, { permissions }]),
    ),
  }),
};

const checkPermissions: Handler = {
  kind: 'unary',
  run: (ctx) => {
    let permissions = opsOf(ctx.body, 'permissions');
    const fullMethod = stringField(ctx.body, 'fullMethod');
    if (boolField(ctx.body, 'check_default_perms_from_full_method')) {
      if (permissions.length > 0) {
        throw new LndError(GRPC.UNKNOWN, 'cannot check default permissions from full method and from provided permission list at the same time');
      }
      if (fullMethod === '') throw new LndError(GRPC.UNKNOWN, 'cannot check default permissions from full method without providing the full method name');
      const defaults = METHOD_PERMISSIONS[fullMethod];
      if (defaults === undefined) throw new LndError(GRPC.UNKNOWN, `no permissions found for full method ${fullMethod}`);
      permissions = defaults;
    }
    const bytes = Buffer.from(bytesField(ctx.body, 'macaroon'), 'hex');
    // CheckMacAuth's errors come back as InvalidArgument.
    let mac: DecodedMacaroon;
    try {
      mac = verified(secretOf(ctx), bytes);
    } catch (err) {
      throw new LndError(GRPC.INVALID_ARGUMENT, (err as Error).message);
    }
    if (!allows(mac, permissions, fullMethod)) throw new LndError(GRPC.INVALID_ARGUMENT, 'permission denied');
    return { valid: true };
  },
};

/** The macaroon operations, as routes.ts lists LND's others (it serves them with the rest). */
export const MACAROON_ROUTES: Route[] = [
  { method: 'POST', path: '/v1/macaroon', body: 'lnrpcBakeMacaroonRequest', handler: bake },
  { method: 'GET', path: '/v1/macaroon/permissions', handler: listPermissions },
  { method: 'POST', path: '/v1/macaroon/checkpermissions', body: 'lnrpcCheckMacPermRequest', handler: checkPermissions },
];
