// Onion messages end to end (BOLT 4): the sender builds one for a path made of hops it names in clear (blinded
// by itself, joined to the destination's path with next_path_key_override) and the destination's blinded path;
// each node peels its layer with its private key and the path key that came with the message, and either
// forwards it (next node id, next path key, packet) or is its destination (payload, its path_id, the reply path).
import { randomBytes } from '@noble/hashes/utils.js';
import { concat } from '../bolt12/tlv.ts';
import type { BlindedPath } from '../bolt12/values.ts';
import { blindedSecretOf, createBlindedPath, encodeRecipientData, unblindHop, type RecipientData } from './blinded-path.ts';
import { OnionError, checkPoint } from './crypto.ts';
import { decodePayload, encodePayload, type OnionMessagePayload } from './payload.ts';
import { createPacket, decodePacket, encodePacket, peelPacket } from './sphinx.ts';

/** An onion message on its way to `firstNodeId`: the path key and packet it is sent with. */
export interface OutgoingOnionMessage {
  firstNodeId: Uint8Array;
  pathKey: Uint8Array;
  packet: Uint8Array;
}

export interface BuildOptions {
  /** Nodes (real ids) the message passes before the destination's path, the first being the one it is sent to. */
  via?: Uint8Array[];
  destination: BlindedPath;
  /** The final hop's payload besides its encrypted_recipient_data. */
  payload: Omit<OnionMessagePayload, 'encryptedRecipientData'>;
  /** Fresh random bytes unless given (tests). */
  sessionKey?: Uint8Array;
  viaPathSecret?: Uint8Array;
}

/** The blinded path the message travels: the `via` hops blinded and joined to the destination's path. */
function fullPath(via: Uint8Array[], destination: BlindedPath, pathSecret: Uint8Array): BlindedPath {
  if (!('nodeId' in destination.firstNode)) throw new OnionError('a destination path introduced by a short channel id is not supported');
  if (via.length === 0) return destination;
  const next = [...via.slice(1), destination.firstNode.nodeId];
  const own = createBlindedPath(
    pathSecret,
    via.map((nodeId, i) => ({
      nodeId,
      data: encodeRecipientData({ nextNodeId: next[i], ...(i === via.length - 1 && { nextPathKeyOverride: destination.pathKey }) }),
    })),
  );
  return { ...own, hops: [...own.hops, ...destination.hops] };
}

export function buildOnionMessage(options: BuildOptions): OutgoingOnionMessage {
  const path = fullPath(options.via ?? [], options.destination, options.viaPathSecret ?? randomBytes(32));
  const last = path.hops.length - 1;
  const payloads = path.hops.map((hop, i) =>
    encodePayload({ ...(i === last && options.payload), encryptedRecipientData: hop.encryptedRecipientData }),
  );
  const packet = createPacket(options.sessionKey ?? randomBytes(32), path.hops.map((hop) => hop.blindedNodeId), payloads);
  return { firstNodeId: (path.firstNode as { nodeId: Uint8Array }).nodeId, pathKey: path.pathKey, packet: encodePacket(packet) };
}

export type PeeledOnionMessage =
  | { kind: 'forward'; nextNodeId: Uint8Array; nextPathKey: Uint8Array; packet: Uint8Array }
  | { kind: 'final'; payload: OnionMessagePayload; recipientData: RecipientData };

/** One node's layer: `nodeSecret` its private key, `pathKey` what came with the message. Throws OnionError. */
export function peelOnionMessage(nodeSecret: Uint8Array, pathKey: Uint8Array, packetBytes: Uint8Array): PeeledOnionMessage {
  const packet = decodePacket(packetBytes);
  const { blindedSecret } = blindedSecretOf(nodeSecret, checkPoint(pathKey, 'path_key'));
  const layer = peelPacket(blindedSecret, packet);
  const payload = decodePayload(layer.payload);
  if (payload.encryptedRecipientData === undefined) throw new OnionError('onion message hop without encrypted_recipient_data');
  const hop = unblindHop(nodeSecret, pathKey, payload.encryptedRecipientData);
  if (!layer.final) {
    if (hop.data.nextNodeId === undefined) throw new OnionError('forwarding hop without next_node_id');
    return { kind: 'forward', nextNodeId: hop.data.nextNodeId, nextPathKey: hop.nextPathKey, packet: encodePacket(layer.next) };
  }
  return { kind: 'final', payload, recipientData: hop.data };
}

/** The onion_message wire message (type 513): path_key, then the packet with its u16 length. */
export function encodeOnionMessageWire(message: { pathKey: Uint8Array; packet: Uint8Array }): Uint8Array {
  return concat([Uint8Array.of(0x02, 0x01), message.pathKey, Uint8Array.of(message.packet.length >> 8, message.packet.length & 0xff), message.packet]);
}

export function decodeOnionMessageWire(bytes: Uint8Array): { pathKey: Uint8Array; packet: Uint8Array } {
  if (bytes.length < 37 || bytes[0] !== 0x02 || bytes[1] !== 0x01) throw new OnionError('not an onion_message');
  const length = (bytes[35] << 8) | bytes[36];
  if (bytes.length !== 37 + length) throw new OnionError('onion_message length does not match');
  return { pathKey: checkPoint(bytes.subarray(2, 35), 'path_key'), packet: bytes.subarray(37) };
}
