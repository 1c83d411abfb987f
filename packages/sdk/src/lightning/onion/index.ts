// BOLT 4 onion messages with route blinding, for the offers protocol's invoice requests and their replies. Our own
// code: no library on the npm registry builds or peels onion messages (the Sphinx packet libraries there only do
// payment onions, without route blinding); the primitives come from @noble (secp256k1, SHA256, ChaCha20-Poly1305).
export { OnionError } from './crypto.ts';
export { createBlindedPath, decodeRecipientData, encodeRecipientData, unblindHop, type RecipientData } from './blinded-path.ts';
export { decodePayload, encodePayload, type OnionMessagePayload } from './payload.ts';
export { createPacket, decodePacket, encodePacket, peelPacket } from './sphinx.ts';
export {
  buildOnionMessage, decodeOnionMessageWire, encodeOnionMessageWire, peelOnionMessage, type OutgoingOnionMessage, type PeeledOnionMessage,
} from './message.ts';
export { fromReplyBlindedPath, toReplyBlindedPath } from './reply-path.ts';
