// The onion messages a Lightning node hands to Ferry before it handles them itself: Core Lightning's
// `onion_message_recv` / `onion_message_recv_secret` hooks as the hold plugin streams them (its OnionMessages call).
// Ferry answers each with `resolve` (it is an invoice request for an offer registered with Ferry: Ferry replies
// itself) or `continue` (the node goes on as if nobody had looked). One shape for the transport (the plugin's gRPC
// stream), the devnet's node that raises the hook, and the responder that answers invoice requests.

/** A blinded path the sender wants the reply on (BOLT 4 route blinding), as the node decoded it. */
export interface ReplyBlindedPath {
  firstNodeId?: Uint8Array; // 33-byte node id of the introduction node
  firstScid?: string; // or the introduction node by short channel id ("103x1x0") …
  firstScidDir?: number; // … and direction
  firstPathKey?: Uint8Array; // the first blinding point
  hops: { blindedNodeId?: Uint8Array; encryptedRecipientData?: Uint8Array }[];
}

/** One onion message that reached the node, with the payload fields the offers protocol defines. */
export interface HeldOnionMessage {
  id: bigint; // the plugin's handle for the answer
  pathSecret?: Uint8Array; // set when the message came over a blinded path of the node's own (recv_secret)
  replyBlindedPath?: ReplyBlindedPath;
  invoiceRequest?: Uint8Array; // TLV 64
  invoice?: Uint8Array; // TLV 66
  invoiceError?: Uint8Array; // TLV 68
  unknownFields: { number: bigint; value: Uint8Array }[];
}

export type OnionHookAction = 'continue' | 'resolve';

export type OnionMessageHandler = (message: HeldOnionMessage) => OnionHookAction | Promise<OnionHookAction>;

/** Where Ferry subscribes to a node's onion messages; returns the unsubscribe. */
export interface OnionMessageStream {
  onMessage(handler: OnionMessageHandler): () => void;
}
