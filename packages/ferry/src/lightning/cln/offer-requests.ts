// Ferry answering invoice requests that reach its CLN node as onion messages, for offers of wallets that cannot be
// online (the reference's hold-plugin onion-message stream): a message carrying an invoice_request and a reply
// path whose offer Ferry answers for (a wallet subscribed over the WebSocket, or a webhook) is taken from the node
// (`resolve`); the wallet is asked through the InvoiceRequestHub — its invoice checked as for bolt12/fetch — and
// the invoice, or an invoice_error with the hub's reason, goes back along [our node] + the reply path, injected
// into the node. Everything else is the node's (`continue`). A failure after `resolve` is logged, never thrown.
import { hex } from '@scure/base';
import type { InvoiceRequestHub } from '../../api/ws/invoice-requests.ts';
import { InvoiceRequestError } from '../../api/ws/invoice-requests.ts';
import type { Logger } from '../../log/index.ts';
import type { LightningBackend } from '../backend.ts';
import { encodeInvoiceError } from '@ferry/sdk/lightning/bolt12/index.js';
import type { BlindedPath } from '@ferry/sdk/lightning/bolt12/values.js';
import type { HeldOnionMessage, OnionHookAction, OnionMessageStream } from '@ferry/sdk/lightning/onion-message-hook.js';
import { OnionError, buildOnionMessage, fromReplyBlindedPath } from '@ferry/sdk/lightning/onion/index.js';

export interface OfferRequestsDeps {
  stream: OnionMessageStream;
  /** The node's own id: the first, unblinded hop of every reply. */
  ourNodeId: Uint8Array;
  /** Hands the node the reply (CLN's injectonionmessage): path key and packet, hex. */
  inject(pathKeyHex: string, messageHex: string): Promise<void>;
  hub: InvoiceRequestHub;
  logger: Logger;
}

/** Starts answering; returns the detach. */
export function attachOfferRequests(deps: OfferRequestsDeps): () => void {
  return deps.stream.onMessage((message) => take(deps, message));
}

async function take(deps: OfferRequestsDeps, message: HeldOnionMessage): Promise<OnionHookAction> {
  const { invoiceRequest, replyBlindedPath } = message;
  if (invoiceRequest === undefined || replyBlindedPath === undefined) return 'continue';
  let replyPath: BlindedPath;
  try {
    replyPath = fromReplyBlindedPath(replyBlindedPath);
    if (!('nodeId' in replyPath.firstNode)) throw new OnionError('reply path introduced by a short channel id');
    if (!(await deps.hub.answersFor(invoiceRequest))) return 'continue';
  } catch (error) {
    deps.logger.debug('not taking an invoice request', { id: String(message.id), error: (error as Error).message });
    return 'continue';
  }
  reply(deps, invoiceRequest, replyPath).catch((error: Error) =>
    deps.logger.warn('could not reply to an invoice request', { id: String(message.id), error: error.message }),
  );
  return 'resolve';
}

async function reply(deps: OfferRequestsDeps, invoiceRequest: Uint8Array, replyPath: BlindedPath): Promise<void> {
  let payload: { invoice: Uint8Array } | { invoiceError: Uint8Array };
  try {
    payload = { invoice: (await deps.hub.requestInvoice(invoiceRequest)).decoded.bytes };
  } catch (error) {
    if (!(error instanceof InvoiceRequestError)) throw error;
    payload = { invoiceError: encodeInvoiceError({ error: error.message }) };
  }
  const message = buildOnionMessage({ via: [deps.ourNodeId], destination: replyPath, payload });
  await deps.inject(hex.encode(message.pathKey), hex.encode(message.packet));
}

/**
 * Attaches the responder to every CLN backend that streams its onion messages; one that does not is logged once
 * (its node then handles invoice requests itself). Returns the detach of all.
 */
export async function answerOfferRequestsOn(lightning: Record<string, LightningBackend>, hub: InvoiceRequestHub, logger: Logger): Promise<() => void> {
  const detach: (() => void)[] = [];
  for (const [currency, backend] of Object.entries(lightning)) {
    if (backend.nodeType !== 'CLN') continue;
    const stream = backend.onionMessages?.();
    if (stream === undefined || backend.injectOnionMessage === undefined) {
      logger.info('the Lightning node does not stream its onion messages: invoice requests it receives are not answered by Ferry', { currency });
      continue;
    }
    let publicKey: string;
    try {
      publicKey = (await backend.getInfo()).publicKey;
    } catch (error) {
      logger.error('invoice requests not answered: the Lightning node did not tell its id', { currency, error: (error as Error).message });
      continue;
    }
    detach.push(
      attachOfferRequests({
        stream,
        ourNodeId: hex.decode(publicKey),
        inject: (pathKey, message) => backend.injectOnionMessage!(pathKey, message),
        hub,
        logger,
      }),
    );
  }
  return () => detach.forEach((stop) => stop());
}
