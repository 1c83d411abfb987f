// Reply paths between the codec's shape (BOLT12's BlindedPath, as offers and onion payloads encode it) and the
// shape a node hands to Ferry with an onion message (ReplyBlindedPath: the hold plugin's fields, scids as text).
import type { BlindedPath } from '../bolt12/values.ts';
import type { ReplyBlindedPath } from '../onion-message-hook.ts';
import { OnionError } from './crypto.ts';

const scidText = (scid: bigint): string => `${scid >> 40n}x${(scid >> 16n) & 0xffffffn}x${scid & 0xffffn}`;

function scidValue(text: string): bigint {
  const parts = /^(\d+)x(\d+)x(\d+)$/.exec(text);
  if (parts === null) throw new OnionError(`reply path: bad short channel id ${text.slice(0, 32)}`);
  return (BigInt(parts[1]) << 40n) | (BigInt(parts[2]) << 16n) | BigInt(parts[3]);
}

export function toReplyBlindedPath(path: BlindedPath): ReplyBlindedPath {
  return {
    ...('nodeId' in path.firstNode
      ? { firstNodeId: path.firstNode.nodeId }
      : { firstScid: scidText(path.firstNode.shortChannelId), firstScidDir: path.firstNode.direction }),
    firstPathKey: path.pathKey,
    hops: path.hops.map((hop) => ({ blindedNodeId: hop.blindedNodeId, encryptedRecipientData: hop.encryptedRecipientData })),
  };
}

/** The path as the codec takes it; a path missing its path key or a hop's fields is refused. */
export function fromReplyBlindedPath(path: ReplyBlindedPath): BlindedPath {
  if (path.firstPathKey === undefined) throw new OnionError('reply path without a first path key');
  if (path.hops.length === 0) throw new OnionError('reply path without hops');
  const hops = path.hops.map((hop) => {
    if (hop.blindedNodeId === undefined || hop.encryptedRecipientData === undefined) throw new OnionError('reply path hop without its blinded node id or data');
    return { blindedNodeId: hop.blindedNodeId, encryptedRecipientData: hop.encryptedRecipientData };
  });
  let firstNode: BlindedPath['firstNode'];
  if (path.firstNodeId !== undefined) firstNode = { nodeId: path.firstNodeId };
  else if (path.firstScid !== undefined && (path.firstScidDir === 0 || path.firstScidDir === 1)) firstNode = { shortChannelId: scidValue(path.firstScid), direction: path.firstScidDir };
  else throw new OnionError('reply path without an introduction node');
  return { firstNode, pathKey: path.firstPathKey, hops };
}
