// Onion messages between the devnet's CLN nodes, as lightningd sends and handles them for BOLT12: `fetchinvoice`
// for an offer reached through another devnet CLN node sends a real invoice_request onion message with a reply
// path to the payer; each node on the way peels its layer (src/lightning/onion) and passes it on; the destination
// raises its onion-message hooks first (onion-hooks.ts: `resolve` — a plugin answers — or `continue`), then
// answers with an invoice if it issued the offer. `injectonionmessage` hands a node an onion as if a peer had
// sent it, which is how a plugin replies. Delivery is in-process and immediate; a message nobody will answer fails
// the payer's fetchinvoice at once with lightningd's timeout error instead of after its `timeout`.
import { randomBytes } from 'node:crypto';
import { hex } from '@scure/base';
import {
  Bolt12Error, checkInvoiceAnswers, decodeInvoiceError, encodeInvoice, invoiceFromBytes, type InvoiceRequest, type Offer,
} from '@ferry/sdk/lightning/bolt12/index.js';
import type { BlindedPath } from '@ferry/sdk/lightning/bolt12/values.js';
import type { HeldOnionMessage } from '@ferry/sdk/lightning/onion-message-hook.js';
import {
  OnionError, buildOnionMessage, createBlindedPath, encodeRecipientData, peelOnionMessage, toReplyBlindedPath, type OutgoingOnionMessage,
} from '@ferry/sdk/lightning/onion/index.js';
import type { LightningNetwork } from '../network.ts';
import { CLN, ClnError, invalidParams } from './errors.ts';
import type { MethodContext } from './lightningd.ts';
import { answerInvoiceRequest } from './issuer.ts';
import { onionHooksOf } from './onion-hooks.ts';
import { optionalInt, requiredString } from './params.ts';

/** What became of a message: answered or taken by a hook (a reply may come), or dropped (none will). */
type Outcome = 'handled' | 'dropped';

interface PendingFetch {
  request: InvoiceRequest;
  settle: (outcome: { invoice: string; changes: Record<string, never> } | ClnError) => void;
}

interface NetworkState {
  clnNodes: Set<string>;
  pending: Map<string, PendingFetch>; // by the reply path's path_id, hex
  nextHookId: bigint;
}

const states = new WeakMap<LightningNetwork, NetworkState>();

function stateOf(network: LightningNetwork): NetworkState {
  let state = states.get(network);
  if (state === undefined) states.set(network, (state = { clnNodes: new Set(), pending: new Map(), nextHookId: 1n }));
  return state;
}

/** A CLN node of this network takes part in onion messages (its clnrest server registers it). */
export function joinOnionMessages(network: LightningNetwork, node: string): void {
  stateOf(network).clnNodes.add(node);
}

/** The devnet CLN node of this public key, if any. */
function clnNodeOf(network: LightningNetwork, nodeId: Uint8Array): string | undefined {
  const record = network.nodeByPubkey(hex.encode(nodeId));
  return record !== undefined && stateOf(network).clnNodes.has(record.name) ? record.name : undefined;
}

/** Hands `node` an onion message; a node that cannot peel it drops it, as a peer's garbage is dropped. */
async function deliver(network: LightningNetwork, node: string, pathKey: Uint8Array, packet: Uint8Array): Promise<Outcome> {
  let peeled;
  try {
    peeled = peelOnionMessage(hex.decode(network.node(node).secretKey), pathKey, packet);
  } catch (error) {
    if (error instanceof OnionError) return 'dropped';
    throw error;
  }
  return arrived(network, node, peeled);
}

async function arrived(network: LightningNetwork, node: string, peeled: ReturnType<typeof peelOnionMessage>): Promise<Outcome> {
  if (peeled.kind === 'forward') {
    const next = clnNodeOf(network, peeled.nextNodeId);
    return next === undefined ? 'dropped' : deliver(network, next, peeled.nextPathKey, peeled.packet);
  }
  const { payload, recipientData } = peeled;
  const state = stateOf(network);
  const held: HeldOnionMessage = {
    id: state.nextHookId++,
    ...(recipientData.pathId !== undefined && { pathSecret: recipientData.pathId }),
    ...(payload.replyPath !== undefined && { replyBlindedPath: toReplyBlindedPath(payload.replyPath) }),
    ...(payload.invoiceRequest !== undefined && { invoiceRequest: payload.invoiceRequest }),
    ...(payload.invoice !== undefined && { invoice: payload.invoice }),
    ...(payload.invoiceError !== undefined && { invoiceError: payload.invoiceError }),
    unknownFields: (payload.unknown ?? []).map(({ type, value }) => ({ number: type, value })),
  };
  if ((await onionHooksOf(network, node).dispatch(held)) === 'resolve') return 'handled';
  if (payload.invoiceRequest !== undefined && payload.replyPath !== undefined) return answerRequest(network, node, payload.invoiceRequest, payload.replyPath);
  if (recipientData.pathId !== undefined && (payload.invoice !== undefined || payload.invoiceError !== undefined)) {
    const key = `${node}/${hex.encode(recipientData.pathId)}`;
    const pending = state.pending.get(key);
    if (pending === undefined) return 'dropped';
    pending.settle(replyOutcome(pending.request, payload.invoice, payload.invoiceError));
    return 'handled';
  }
  return 'dropped';
}

/** The payer's reading of the reply, as lightningd's fetchinvoice checks it. */
function replyOutcome(request: InvoiceRequest, invoice: Uint8Array | undefined, invoiceError: Uint8Array | undefined): { invoice: string; changes: Record<string, never> } | ClnError {
  try {
    if (invoice === undefined) {
      const { error } = decodeInvoiceError(invoiceError!);
      return new ClnError(CLN.OFFER_BAD_INVREQ_REPLY, 'Remote node sent failure message', 500, { invoice_error_hex: hex.encode(invoiceError!), error });
    }
    const decoded = invoiceFromBytes(invoice);
    checkInvoiceAnswers(decoded, request);
    return { invoice: encodeInvoice(decoded), changes: {} };
  } catch (error) {
    if (error instanceof Bolt12Error) return new ClnError(CLN.OFFER_BAD_INVREQ_REPLY, `Incorrect reply: ${error.message}`);
    throw error;
  }
}

/** The issuing node answers an invoice request for an offer of its own along the reply path. */
async function answerRequest(network: LightningNetwork, node: string, requestBytes: Uint8Array, replyPath: BlindedPath): Promise<Outcome> {
  let invoice;
  try {
    invoice = answerInvoiceRequest(network, node, requestBytes);
  } catch (error) {
    if (error instanceof Bolt12Error) return 'dropped';
    throw error;
  }
  if (invoice === undefined) return 'dropped';
  return send(network, buildOnionMessage({ destination: replyPath, payload: { invoice: invoice.bytes } }));
}

async function send(network: LightningNetwork, message: OutgoingOnionMessage): Promise<Outcome> {
  const first = clnNodeOf(network, message.firstNodeId);
  return first === undefined ? 'dropped' : deliver(network, first, message.pathKey, message.packet);
}

/** The devnet CLN node an invoice request for this offer goes to, other than the payer: its path's or its issuer's. */
export function offerRouteOf(network: LightningNetwork, payer: string, offer: Offer): { node: string; destination: BlindedPath } | undefined {
  const path = offer.fields.paths?.find((candidate) => 'nodeId' in candidate.firstNode);
  const entry = path !== undefined ? (path.firstNode as { nodeId: Uint8Array }).nodeId : offer.fields.issuerId;
  if (entry === undefined) return undefined;
  const node = clnNodeOf(network, entry);
  if (node === undefined || node === payer) return undefined;
  return { node, destination: path ?? createBlindedPath(randomBytes(32), [{ nodeId: entry, data: encodeRecipientData({}) }]) };
}

/** fetchinvoice's onion-message leg: sends the request, waits for the reply (or the timeout, s). */
export async function requestOverOnion(network: LightningNetwork, payer: string, destination: BlindedPath, request: InvoiceRequest, timeoutSeconds: number): Promise<{ invoice: string; changes: Record<string, never> }> {
  const pathId = randomBytes(32);
  const replyPath = createBlindedPath(randomBytes(32), [{ nodeId: hex.decode(network.node(payer).pubkey), data: encodeRecipientData({ pathId }) }]);
  const state = stateOf(network);
  const key = `${payer}/${hex.encode(pathId)}`;
  let settle!: PendingFetch['settle'];
  const reply = new Promise<{ invoice: string; changes: Record<string, never> }>((resolve, reject) => {
    const timer = setTimeout(() => settle(new ClnError(CLN.OFFER_TIMEOUT, 'Timeout waiting for response')), timeoutSeconds * 1000);
    timer.unref();
    settle = (outcome) => {
      clearTimeout(timer);
      state.pending.delete(key);
      if (outcome instanceof ClnError) reject(outcome);
      else resolve(outcome);
    };
  });
  state.pending.set(key, { request, settle });
  const outcome = await send(network, buildOnionMessage({ destination, payload: { invoiceRequest: request.bytes, replyPath } }));
  if (outcome === 'dropped' && state.pending.has(key)) settle(new ClnError(CLN.OFFER_TIMEOUT, 'Timeout waiting for response'));
  return reply;
}

/** `injectonionmessage {message, path_key}`: the node handles the onion as if a peer had sent it. */
export async function injectonionmessage({ network, node, params }: MethodContext): Promise<Record<string, unknown>> {
  const message = hexParam(requiredString(params, 'message'), 'message');
  const pathKey = hexParam(requiredString(params, 'path_key'), 'path_key');
  let peeled;
  try {
    peeled = peelOnionMessage(hex.decode(network.node(node).secretKey), pathKey, message);
  } catch (error) {
    if (error instanceof OnionError) throw new ClnError(CLN.LIGHTNINGD, `onion_message_parse: can't parse onionpacket (${error.message})`);
    throw error;
  }
  await arrived(network, node, peeled);
  return {};
}

function hexParam(text: string, name: string): Uint8Array {
  if (!/^([0-9a-fA-F]{2})+$/.test(text)) throw invalidParams(`${name}: should be a hex value: invalid token '${text.slice(0, 64)}'`);
  return hex.decode(text.toLowerCase());
}

export const fetchTimeoutOf = (params: MethodContext['params']): number => optionalInt(params, 'timeout') ?? 60;
