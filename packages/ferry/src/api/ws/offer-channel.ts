// One WebSocket connection's side of the `invoice.request` channel: subscribing to offers (each with its owner's
// signature of SHA256("SUBSCRIBE") by offer_issuer_id; all of a message's offers must verify or none is added),
// unsubscribing, the `request` events and the wallet's `invoice` / `invoice.error` answers.
import {
  Bolt12Error, OWNER_MESSAGES, checkOwnerSignature, decodeOffer, offerExpired, parseSignatureHex,
} from '@ferry/sdk/lightning/bolt12/index.js';
import { InvoiceAnswerError, type InvoiceRequestHub, type OfferListener } from './invoice-requests.ts';
import { clip, invoiceRequestChannel, type OfferCommand } from './messages.ts';

export class OfferChannel implements OfferListener {
  constructor(
    private readonly hub: InvoiceRequestHub,
    private readonly send: (message: Record<string, unknown>) => void,
  ) {}

  deliver(request: { id: string; offer: string; invoiceRequest: string }): void {
    this.send({ event: 'request', channel: invoiceRequestChannel, args: [request] });
  }

  handle(command: OfferCommand): void {
    switch (command.op) {
      case 'subscribe':
        return this.subscribe(command.args);
      case 'unsubscribe':
        return this.unsubscribe(command.args);
      case 'invoice':
      case 'invoice.error':
        try {
          this.hub.answer(this, command.id, command.op === 'invoice' ? { invoice: command.invoice } : { error: command.error });
        } catch (error) {
          if (!(error instanceof InvoiceAnswerError)) throw error;
          this.send({ event: 'error', error: error.message });
        }
    }
  }

  close(): void {
    this.hub.drop(this);
  }

  private subscribe(args: { offer: string; signature: string }[]): void {
    const offers: { bytes: Uint8Array; offer: string }[] = [];
    try {
      for (const { offer: text, signature } of args) {
        const offer = decodeOffer(text);
        if (offerExpired(offer, Date.now() / 1000)) throw new Bolt12Error('offer expired');
        checkOwnerSignature(offer, OWNER_MESSAGES.subscribe, parseSignatureHex(signature));
        offers.push({ bytes: offer.bytes, offer: text });
      }
    } catch (error) {
      if (!(error instanceof Bolt12Error)) throw error;
      const index = offers.length;
      return this.send({ event: 'error', error: `invalid offer subscription ${index} (${clip(args[index].offer)}): ${error.message}` });
    }
    const held = new Set(this.hub.offersOf(this));
    const added = args.filter(({ offer }) => !held.has(offer)).length;
    const max = this.hub.options.maxOffersPerConnection;
    if (held.size + added > max) return this.send({ event: 'error', error: `too many offers: at most ${max} per connection` });
    this.hub.subscribe(this, offers);
    this.send({ event: 'subscribe', channel: invoiceRequestChannel, args: args.map(({ offer }) => offer) });
  }

  private unsubscribe(args: string[]): void {
    const offers: Uint8Array[] = [];
    for (const text of args) {
      try {
        offers.push(decodeOffer(text).bytes);
      } catch (error) {
        if (!(error instanceof Bolt12Error)) throw error;
        // an offer that does not decode cannot be subscribed: nothing to remove
      }
    }
    const still = this.hub.unsubscribe(this, offers);
    this.send({ event: 'unsubscribe', op: 'unsubscribe', channel: invoiceRequestChannel, args: still });
  }
}
