// BOLT 4 route blinding: a recipient hides the nodes of a path to itself behind blinded node ids, each hop's
// instructions (encrypted_recipient_data) readable only by that hop; the path key (blinding point) steps from hop
// to hop. Used here for onion messages: the next hop (next_node_id), the recipient's own secret (path_id), and
// where a sender joins its own hops to someone else's path (next_path_key_override).
import { Bolt12Error, encodeTlvStream, parseTlvStream } from '../bolt12/tlv.ts';
import type { BlindedPath } from '../bolt12/values.ts';
import {
  OnionError, blindingFactor, checkPoint, deriveKey, ecdh, multiplyPoint, multiplySecret, open, publicKeyOf, seal,
} from './crypto.ts';


/** The encrypted_data_tlv fields an onion-message hop reads (others are kept as unknown). */
export interface RecipientData {
  padding?: Uint8Array; // 1
  shortChannelId?: Uint8Array; // 2
  nextNodeId?: Uint8Array; // 4
  pathId?: Uint8Array; // 6
  nextPathKeyOverride?: Uint8Array; // 8
  unknown?: { type: bigint; value: Uint8Array }[];
}

const FIELDS = [
  [1n, 'padding'],
  [2n, 'shortChannelId'],
  [4n, 'nextNodeId'],
  [6n, 'pathId'],
  [8n, 'nextPathKeyOverride'],
] as const;

export function encodeRecipientData(data: RecipientData): Uint8Array {
  const records = FIELDS.flatMap(([type, name]) => (data[name] === undefined ? [] : [{ type, value: data[name] }]));
  return encodeTlvStream([...records, ...(data.unknown ?? [])]);
}

export function decodeRecipientData(bytes: Uint8Array): RecipientData {
  let records;
  try {
    records = parseTlvStream(bytes);
  } catch (error) {
    if (error instanceof Bolt12Error) throw new OnionError(`encrypted_recipient_data: ${error.message}`);
    throw error;
  }
  const data: RecipientData = {};
  for (const record of records) {
    const known = FIELDS.find(([type]) => type === record.type);
    if (known === undefined) (data.unknown ??= []).push({ type: record.type, value: record.value });
    else data[known[1]] = record.value;
  }
  if (data.nextNodeId !== undefined) checkPoint(data.nextNodeId, 'next_node_id');
  if (data.nextPathKeyOverride !== undefined) checkPoint(data.nextPathKeyOverride, 'next_path_key_override');
  return data;
}

/**
 * Blinds a path through `hops` (real node ids, each with the encoded data it is to read), the first being the
 * introduction node; `sessionKey` is the path's first secret (fresh random bytes outside tests).
 */
export function createBlindedPath(sessionKey: Uint8Array, hops: { nodeId: Uint8Array; data: Uint8Array }[]): BlindedPath {
  if (hops.length === 0) throw new OnionError('a blinded path needs at least one hop');
  let secret = sessionKey;
  const blinded: BlindedPath['hops'] = [];
  for (const hop of hops) {
    const pathKey = publicKeyOf(secret);
    const shared = ecdh(secret, hop.nodeId);
    blinded.push({
      blindedNodeId: multiplyPoint(hop.nodeId, deriveKey('blinded_node_id', shared)),
      encryptedRecipientData: seal(deriveKey('rho', shared), hop.data),
    });
    secret = multiplySecret(secret, blindingFactor(pathKey, shared));
  }
  return { firstNode: { nodeId: hops[0].nodeId }, pathKey: publicKeyOf(sessionKey), hops: blinded };
}

/** What a hop of a blinded path learns from its path key: its blinded private key, its data, the next path key. */
export interface UnblindedHop {
  blindedSecret: Uint8Array;
  data: RecipientData;
  nextPathKey: Uint8Array;
}

/** The shared secret with the path key and the hop's blinded private key (to peel the onion addressed to it). */
export function blindedSecretOf(nodeSecret: Uint8Array, pathKey: Uint8Array): { shared: Uint8Array; blindedSecret: Uint8Array } {
  const shared = ecdh(nodeSecret, checkPoint(pathKey, 'path_key'));
  return { shared, blindedSecret: multiplySecret(nodeSecret, deriveKey('blinded_node_id', shared)) };
}

export function unblindHop(nodeSecret: Uint8Array, pathKey: Uint8Array, encryptedRecipientData: Uint8Array): UnblindedHop {
  const { shared, blindedSecret } = blindedSecretOf(nodeSecret, pathKey);
  const data = decodeRecipientData(open(deriveKey('rho', shared), encryptedRecipientData));
  const nextPathKey = data.nextPathKeyOverride ?? multiplyPoint(pathKey, blindingFactor(pathKey, shared));
  return { blindedSecret, data, nextPathKey };
}
