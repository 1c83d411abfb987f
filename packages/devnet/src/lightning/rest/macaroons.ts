// Macaroons as LND bakes them, so the devnet can refuse what a real LND refuses: the binary V2 format of
// go-macaroon (version byte 2, location "lnd", identifier, no caveats, HMAC-SHA256 signature) whose identifier is
// macaroon-bakery's Version3 form — byte 3, then the protobuf MacaroonId {nonce = 1, storageId = 2, ops = 3} with
// each op {entity = 1, actions = 2} — so the permissions travel inside the macaroon (lnd's macaroons package and
// bakery.Oven). Written by hand: the format is a few length-prefixed fields, and the devnet both bakes and checks.
// The root key of storage id "0" is the node's stored secret; other ids (BakeMacaroon's root_key_id) derive theirs
// from it, so every macaroon the node ever baked verifies after a restart.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface MacaroonOp {
  entity: string;
  action: string;
}

export interface DecodedMacaroon {
  location: string;
  id: Buffer;
  signature: Buffer;
  caveats: Buffer[];
  storageId: string;
  ops: MacaroonOp[];
}

const FIELD = { EOS: 0, LOCATION: 1, IDENTIFIER: 2, VID: 4, SIGNATURE: 6 } as const;
const BAKERY_VERSION_3 = 3;

/** LND's admin.macaroon: readPermissions then writePermissions of rpcserver.go (v0.18.5). */
export const ADMIN_OPS: MacaroonOp[] = [
  ...['onchain', 'offchain', 'address', 'message', 'peers', 'info', 'invoices', 'signer', 'macaroon'].map((entity) => ({ entity, action: 'read' })),
  ...['onchain', 'offchain', 'address', 'message', 'peers', 'info', 'invoices'].map((entity) => ({ entity, action: 'write' })),
  { entity: 'signer', action: 'generate' },
  { entity: 'macaroon', action: 'generate' },
  { entity: 'macaroon', action: 'write' },
];

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n >= 0x80) {
    bytes.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  bytes.push(n);
  return Buffer.from(bytes);
}

function readVarint(data: Buffer, at: number): [number, number] {
  let n = 0;
  let shift = 1;
  for (let i = at; i < data.length && i < at + 5; i++) {
    n += (data[i] & 0x7f) * shift;
    if ((data[i] & 0x80) === 0) return [n, i + 1];
    shift *= 128;
  }
  throw new Error('bad varint');
}

const field = (type: number, value: Buffer): Buffer => Buffer.concat([Buffer.from([type]), varint(value.length), value]);
const protoBytes = (tag: number, value: Buffer): Buffer => Buffer.concat([Buffer.from([(tag << 3) | 2]), varint(value.length), value]);

/** bakery's canonical ops: by entity, each with its sorted, distinct actions. */
function canonicalOps(ops: MacaroonOp[]): Map<string, string[]> {
  const byEntity = new Map<string, Set<string>>();
  for (const op of ops) byEntity.set(op.entity, (byEntity.get(op.entity) ?? new Set()).add(op.action));
  return new Map([...byEntity.keys()].sort().map((entity) => [entity, [...byEntity.get(entity)!].sort()]));
}

function encodeId(nonce: Buffer, storageId: string, ops: MacaroonOp[]): Buffer {
  const parts = [protoBytes(1, nonce), protoBytes(2, Buffer.from(storageId))];
  for (const [entity, actions] of canonicalOps(ops)) {
    const op = Buffer.concat([protoBytes(1, Buffer.from(entity)), ...actions.map((a) => protoBytes(2, Buffer.from(a)))]);
    parts.push(protoBytes(3, op));
  }
  return Buffer.concat([Buffer.from([BAKERY_VERSION_3]), ...parts]);
}

function protoFields(data: Buffer): [number, Buffer][] {
  const out: [number, Buffer][] = [];
  let at = 0;
  while (at < data.length) {
    const key = data[at++];
    if ((key & 7) !== 2) throw new Error('unexpected wire type');
    const [length, next] = readVarint(data, at);
    out.push([key >> 3, data.subarray(next, next + length)]);
    at = next + length;
    if (at > data.length) throw new Error('truncated field');
  }
  return out;
}

function decodeId(id: Buffer): { storageId: string; ops: MacaroonOp[] } {
  if (id.length < 1 || id[0] !== BAKERY_VERSION_3) throw new Error('invalid macaroon ID');
  let storageId = '';
  const ops: MacaroonOp[] = [];
  for (const [tag, value] of protoFields(id.subarray(1))) {
    if (tag === 2) storageId = value.toString();
    if (tag !== 3) continue;
    let entity = '';
    const actions: string[] = [];
    for (const [t, v] of protoFields(value)) {
      if (t === 1) entity = v.toString();
      if (t === 2) actions.push(v.toString());
    }
    for (const action of actions) ops.push({ entity, action });
  }
  return { storageId, ops };
}

const hmac = (key: Buffer, data: Buffer): Buffer => createHmac('sha256', key).update(data).digest();
// go-macaroon's makeKey: the root key is first hashed under a fixed generator key.
const derivedKey = (rootKey: Buffer): Buffer => hmac(Buffer.from('macaroons-key-generator'), rootKey);

/** The root key of a storage id: the node's secret for "0" (lnd's DefaultRootKeyID), derived from it otherwise. */
export function rootKeyFor(nodeSecretHex: string, storageId: string): Buffer {
  const secret = Buffer.from(nodeSecretHex, 'hex');
  return storageId === '0' ? secret : hmac(secret, Buffer.from(`root-key-id:${storageId}`));
}

/** A macaroon as hex, as LND hands it out (BakeMacaroon's answer, the .macaroon files' bytes). */
export function bakeMacaroon(nodeSecretHex: string, ops: MacaroonOp[], storageId = '0', nonce?: Buffer): string {
  const id = encodeId(nonce ?? createHash('sha256').update(`${nodeSecretHex}:${storageId}:${JSON.stringify(ops)}`).digest().subarray(0, 16), storageId, ops);
  const signature = hmac(derivedKey(rootKeyFor(nodeSecretHex, storageId)), id);
  return Buffer.concat([
    Buffer.from([2]),
    field(FIELD.LOCATION, Buffer.from('lnd')),
    field(FIELD.IDENTIFIER, id),
    Buffer.from([FIELD.EOS]),
    Buffer.from([FIELD.EOS]),
    field(FIELD.SIGNATURE, signature),
  ]).toString('hex');
}

/** go-macaroon's V2 binary form; throws on anything else. */
export function decodeMacaroon(bytes: Buffer): DecodedMacaroon {
  if (bytes.length === 0) throw new Error('empty macaroon data');
  // go-macaroon reads a first byte of ASCII hex as a V1 macaroon, which LND then refuses by version.
  if (bytes[0] !== 2) throw new Error(/[0-9a-fA-F]/.test(String.fromCharCode(bytes[0])) ? 'unknown macaroon version: V1' : 'cannot determine data format of binary-encoded macaroon');
  let at = 1;
  const next = (): [number, Buffer] => {
    const type = bytes[at++];
    if (type === undefined) throw new Error('truncated macaroon');
    if (type === FIELD.EOS) return [type, Buffer.alloc(0)];
    const [length, start] = readVarint(bytes, at);
    at = start + length;
    if (at > bytes.length) throw new Error('truncated macaroon');
    return [type, bytes.subarray(start, at)];
  };
  let location = '';
  let [type, value] = next();
  if (type === FIELD.LOCATION) {
    location = value.toString();
    [type, value] = next();
  }
  if (type !== FIELD.IDENTIFIER) throw new Error('missing macaroon identifier');
  const id = value;
  if (next()[0] !== FIELD.EOS) throw new Error('unexpected field');
  const caveats: Buffer[] = [];
  for (;;) {
    [type, value] = next();
    if (type === FIELD.EOS) break;
    if (type === FIELD.LOCATION) [type, value] = next();
    if (type !== FIELD.IDENTIFIER) throw new Error('missing caveat identifier');
    caveats.push(value);
    [type, value] = next();
    if (type === FIELD.VID) [type] = next();
    if (type !== FIELD.EOS) throw new Error('unexpected caveat field');
  }
  [type, value] = next();
  if (type !== FIELD.SIGNATURE || value.length !== 32 || at !== bytes.length) throw new Error('bad macaroon signature field');
  return { location, id, signature: value, caveats, ...decodeId(id) };
}

/** Whether the macaroon's signature chain verifies under the node's root keys (first-party caveats only). */
export function verifySignature(nodeSecretHex: string, mac: DecodedMacaroon): boolean {
  let sig = hmac(derivedKey(rootKeyFor(nodeSecretHex, mac.storageId)), mac.id);
  for (const caveat of mac.caveats) sig = hmac(sig, caveat);
  return timingSafeEqual(sig, mac.signature);
}

/** bakery's Allow: every required op granted by the macaroon's ops (or the `uri` entity naming the method). */
export function allows(mac: DecodedMacaroon, required: MacaroonOp[], fullMethod: string): boolean {
  const has = (e: string, a: string) => mac.ops.some((op) => op.entity === e && op.action === a);
  return required.every((op) => has(op.entity, op.action)) || (fullMethod !== '' && has('uri', fullMethod));
}
