// BOLT 4 Sphinx packets as onion messages use them: version 0, the sender's ephemeral key, the hop payloads each
// hop can peel one layer of (1300 bytes, or 32768 when the payloads need more), an HMAC over them; no associated
// data. Each payload is a BigSize length, the payload, and the HMAC the next hop checks (all zero: the last hop).
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Bolt12Error, concat, readBigSize, writeBigSize } from '../bolt12/tlv.ts';
import {
  OnionError, blindingFactor, checkPoint, deriveKey, ecdh, equalBytes, keystream, multiplyPoint, multiplySecret, publicKeyOf, xorInto,
} from './crypto.ts';

export const HOP_PAYLOADS_SIZES = [1300, 32768] as const;
const HMAC_SIZE = 32;

export interface OnionPacket {
  version: number;
  publicKey: Uint8Array;
  hopPayloads: Uint8Array;
  hmac: Uint8Array;
}

export function encodePacket(packet: OnionPacket): Uint8Array {
  return concat([Uint8Array.of(packet.version), packet.publicKey, packet.hopPayloads, packet.hmac]);
}

export function decodePacket(bytes: Uint8Array): OnionPacket {
  if (!HOP_PAYLOADS_SIZES.some((size) => bytes.length === 1 + 33 + size + HMAC_SIZE)) throw new OnionError(`onion packet of ${bytes.length} bytes`);
  if (bytes[0] !== 0) throw new OnionError(`onion packet version ${bytes[0]}`);
  return {
    version: 0,
    publicKey: checkPoint(bytes.subarray(1, 34), 'onion ephemeral key'),
    hopPayloads: bytes.subarray(34, bytes.length - HMAC_SIZE),
    hmac: bytes.subarray(bytes.length - HMAC_SIZE),
  };
}

const framed = (payload: Uint8Array) => concat([writeBigSize(BigInt(payload.length)), payload]);

/** Wraps `payloads` for the hops of these public keys (the blinded node ids of a blinded path), first hop first. */
export function createPacket(sessionKey: Uint8Array, hopKeys: Uint8Array[], payloads: Uint8Array[]): OnionPacket {
  if (hopKeys.length === 0 || hopKeys.length !== payloads.length) throw new OnionError('an onion needs one payload per hop');
  const frames = payloads.map(framed);
  const needed = frames.reduce((sum, frame) => sum + frame.length + HMAC_SIZE, 0);
  const size = HOP_PAYLOADS_SIZES.find((candidate) => needed <= candidate);
  if (size === undefined) throw new OnionError(`onion payloads of ${needed} bytes do not fit`);

  // each hop's shared secret, the ephemeral key stepping on by the blinding factor
  const secrets: Uint8Array[] = [];
  let ephemeral = sessionKey;
  for (const hopKey of hopKeys) {
    const publicKey = publicKeyOf(ephemeral);
    const shared = ecdh(ephemeral, hopKey);
    secrets.push(shared);
    ephemeral = multiplySecret(ephemeral, blindingFactor(publicKey, shared));
  }

  // the filler: what the earlier hops' shifts leave at the end, so the last HMAC covers the right bytes
  let filler: Uint8Array = new Uint8Array(0);
  for (let i = 0; i < hopKeys.length - 1; i++) {
    const shift = frames[i].length + HMAC_SIZE;
    const grown = concat([filler, new Uint8Array(shift)]);
    xorInto(grown, keystream(deriveKey('rho', secrets[i]), size + shift), size - filler.length);
    filler = grown;
  }

  const mix = keystream(deriveKey('pad', sessionKey), size);
  let nextHmac: Uint8Array = new Uint8Array(HMAC_SIZE);
  for (let i = hopKeys.length - 1; i >= 0; i--) {
    const shift = frames[i].length + HMAC_SIZE;
    mix.copyWithin(shift, 0, size - shift);
    mix.set(frames[i], 0);
    mix.set(nextHmac, frames[i].length);
    xorInto(mix, keystream(deriveKey('rho', secrets[i]), size));
    if (i === hopKeys.length - 1) mix.set(filler, size - filler.length);
    nextHmac = hmac(sha256, deriveKey('mu', secrets[i]), mix);
  }
  return { version: 0, publicKey: publicKeyOf(sessionKey), hopPayloads: mix, hmac: nextHmac };
}

export type PeeledLayer =
  | { final: false; payload: Uint8Array; next: OnionPacket }
  | { final: true; payload: Uint8Array };

/** One layer off, with the private key the packet is addressed to (a blinded node's blinded secret). */
export function peelPacket(secret: Uint8Array, packet: OnionPacket): PeeledLayer {
  const shared = ecdh(secret, packet.publicKey);
  if (!equalBytes(hmac(sha256, deriveKey('mu', shared), packet.hopPayloads), packet.hmac)) throw new OnionError('onion HMAC does not match');
  const size = packet.hopPayloads.length;
  const opened = concat([packet.hopPayloads, new Uint8Array(size)]);
  xorInto(opened, keystream(deriveKey('rho', shared), 2 * size));
  let length;
  try {
    length = readBigSize(opened, 0);
  } catch (error) {
    if (error instanceof Bolt12Error) throw new OnionError(`onion payload length: ${error.message}`);
    throw error;
  }
  const end = length.next + Number(length.value);
  if (length.value === 0n || end + HMAC_SIZE > size) throw new OnionError('onion payload length out of range');
  const payload = opened.slice(length.next, end);
  const nextHmac = opened.slice(end, end + HMAC_SIZE);
  if (nextHmac.every((byte) => byte === 0)) return { final: true, payload };
  return {
    final: false,
    payload,
    next: {
      version: 0,
      publicKey: multiplyPoint(packet.publicKey, blindingFactor(packet.publicKey, shared)),
      hopPayloads: opened.slice(end + HMAC_SIZE, end + HMAC_SIZE + size),
      hmac: nextHmac,
    },
  };
}
