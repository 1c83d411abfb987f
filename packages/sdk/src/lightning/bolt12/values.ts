// Value types of BOLT12 fields: UTF-8 text (strict), points (valid compressed secp256k1 keys), chain hashes,
// feature bitmaps, blinded paths (BOLT #4: first node as a key or a short-channel-id with direction), blinded
// payinfo and fallback addresses. Each reader refuses a value that does not fill its bytes exactly.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Bolt12Error, concat } from './tlv.ts';

export type FirstNode = { nodeId: Uint8Array } | { shortChannelId: bigint; direction: 0 | 1 };

export interface BlindedPath {
  firstNode: FirstNode;
  pathKey: Uint8Array;
  hops: { blindedNodeId: Uint8Array; encryptedRecipientData: Uint8Array }[];
}

export interface BlindedPayInfo {
  feeBaseMsat: number;
  feeProportionalMillionths: number;
  cltvExpiryDelta: number;
  htlcMinimumMsat: bigint;
  htlcMaximumMsat: bigint;
  features: Uint8Array;
}

export interface FallbackAddress {
  version: number;
  address: Uint8Array;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function readUtf8(value: Uint8Array, name: string): string {
  try {
    return utf8.decode(value);
  } catch {
    throw new Bolt12Error(`${name}: invalid UTF-8`);
  }
}

export function readPoint(value: Uint8Array, name: string): Uint8Array {
  if (value.length !== 33) throw new Bolt12Error(`${name}: a point is 33 bytes`);
  try {
    secp256k1.Point.fromBytes(value);
  } catch {
    throw new Bolt12Error(`${name}: not a valid public key`);
  }
  return value;
}

export function readFixed(value: Uint8Array, length: number, name: string): Uint8Array {
  if (value.length !== length) throw new Bolt12Error(`${name}: must be ${length} bytes`);
  return value;
}

export function readChains(value: Uint8Array, name: string): Uint8Array[] {
  if (value.length === 0 || value.length % 32 !== 0) throw new Bolt12Error(`${name}: must hold one or more 32-byte chain hashes`);
  return Array.from({ length: value.length / 32 }, (_, i) => value.subarray(32 * i, 32 * i + 32));
}

/** Throws when a feature bitmap sets an even bit not in `known` (odd bits are optional and ignored). */
export function checkFeatures(bitmap: Uint8Array, known: readonly number[], name: string): Uint8Array {
  for (let byte = 0; byte < bitmap.length; byte++) {
    for (let bit = 0; bit < 8; bit++) {
      if ((bitmap[bitmap.length - 1 - byte] >> bit) & 1) {
        const number = byte * 8 + bit;
        if (number % 2 === 0 && !known.includes(number)) throw new Bolt12Error(`${name}: unknown required feature bit ${number}`);
      }
    }
  }
  return bitmap;
}

/** A cursor over one value, for the composite types. */
class Reader {
  private offset = 0;
  constructor(private readonly bytes: Uint8Array, private readonly name: string) {}
  get done(): boolean {
    return this.offset >= this.bytes.length;
  }
  take(length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new Bolt12Error(`${this.name}: truncated`);
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
  uint(length: number): bigint {
    return this.take(length).reduce((sum, byte) => (sum << 8n) | BigInt(byte), 0n);
  }
}

function uintBytes(value: bigint | number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let rest = BigInt(value);
  for (let i = length - 1; i >= 0; i--, rest >>= 8n) out[i] = Number(rest & 0xffn);
  return out;
}

export function readBlindedPaths(value: Uint8Array, name: string): BlindedPath[] {
  const reader = new Reader(value, name);
  const paths: BlindedPath[] = [];
  while (!reader.done) {
    const kind = reader.take(1)[0];
    let firstNode: FirstNode;
    if (kind === 0 || kind === 1) firstNode = { direction: kind, shortChannelId: reader.uint(8) };
    else firstNode = { nodeId: readPoint(concat([Uint8Array.of(kind), reader.take(32)]), `${name}: first_node_id`) };
    const pathKey = readPoint(reader.take(33), `${name}: path_key`);
    const count = Number(reader.uint(1));
    if (count === 0) throw new Bolt12Error(`${name}: a blinded path has no hops`);
    const hops = Array.from({ length: count }, () => {
      const blindedNodeId = readPoint(reader.take(33), `${name}: blinded_node_id`);
      return { blindedNodeId, encryptedRecipientData: reader.take(Number(reader.uint(2))) };
    });
    paths.push({ firstNode, pathKey, hops });
  }
  if (paths.length === 0) throw new Bolt12Error(`${name}: no paths`);
  return paths;
}

export function writeBlindedPaths(paths: BlindedPath[]): Uint8Array {
  return concat(
    paths.flatMap((path) => [
      'nodeId' in path.firstNode
        ? path.firstNode.nodeId
        : concat([Uint8Array.of(path.firstNode.direction), uintBytes(path.firstNode.shortChannelId, 8)]),
      path.pathKey,
      Uint8Array.of(path.hops.length),
      ...path.hops.flatMap((hop) => [hop.blindedNodeId, uintBytes(hop.encryptedRecipientData.length, 2), hop.encryptedRecipientData]),
    ]),
  );
}

export function readPayInfos(value: Uint8Array, name: string): BlindedPayInfo[] {
  const reader = new Reader(value, name);
  const infos: BlindedPayInfo[] = [];
  while (!reader.done) {
    infos.push({
      feeBaseMsat: Number(reader.uint(4)),
      feeProportionalMillionths: Number(reader.uint(4)),
      cltvExpiryDelta: Number(reader.uint(2)),
      htlcMinimumMsat: reader.uint(8),
      htlcMaximumMsat: reader.uint(8),
      features: reader.take(Number(reader.uint(2))),
    });
  }
  return infos;
}

export function writePayInfos(infos: BlindedPayInfo[]): Uint8Array {
  return concat(
    infos.flatMap((info) => [
      uintBytes(info.feeBaseMsat, 4),
      uintBytes(info.feeProportionalMillionths, 4),
      uintBytes(info.cltvExpiryDelta, 2),
      uintBytes(info.htlcMinimumMsat, 8),
      uintBytes(info.htlcMaximumMsat, 8),
      uintBytes(info.features.length, 2),
      info.features,
    ]),
  );
}

export function readFallbacks(value: Uint8Array, name: string): FallbackAddress[] {
  const reader = new Reader(value, name);
  const out: FallbackAddress[] = [];
  while (!reader.done) {
    const version = Number(reader.uint(1));
    out.push({ version, address: reader.take(Number(reader.uint(2))) });
  }
  return out;
}

export function writeFallbacks(fallbacks: FallbackAddress[]): Uint8Array {
  return concat(fallbacks.flatMap((f) => [Uint8Array.of(f.version), uintBytes(f.address.length, 2), f.address]));
}

const bip353Characters = /^[0-9a-zA-Z._-]*$/;

export function readBip353Name(value: Uint8Array, name: string): { name: string; domain: string } {
  const reader = new Reader(value, name);
  const user = readUtf8(reader.take(Number(reader.uint(1))), name);
  const domain = readUtf8(reader.take(Number(reader.uint(1))), name);
  if (!reader.done) throw new Bolt12Error(`${name}: trailing bytes`);
  if (!bip353Characters.test(user) || !bip353Characters.test(domain)) throw new Bolt12Error(`${name}: invalid characters`);
  return { name: user, domain };
}

export function writeBip353Name(value: { name: string; domain: string }): Uint8Array {
  const text = new TextEncoder();
  const [user, domain] = [text.encode(value.name), text.encode(value.domain)];
  return concat([Uint8Array.of(user.length), user, Uint8Array.of(domain.length), domain]);
}
