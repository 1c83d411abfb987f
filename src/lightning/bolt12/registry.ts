// Offers registered for BOLT12 reverse swaps, per Lightning currency, with the webhook (if any) that answers their
// invoice requests. Kept in memory: a restart forgets them, and wallets register again (persisting them belongs
// with the CLN backend, which will consult this registry for the webhook of an incoming request's offer).
import { hex } from '@scure/base';
import type { Offer } from './offer.ts';

export interface RegisteredOffer {
  offer: string;
  url?: string;
}

export class OfferRegistry {
  private readonly byCurrency = new Map<string, Map<string, RegisteredOffer>>();

  private offersOf(currency: string): Map<string, RegisteredOffer> {
    let offers = this.byCurrency.get(currency);
    if (offers === undefined) this.byCurrency.set(currency, (offers = new Map()));
    return offers;
  }

  /** False when the offer is registered already. */
  add(currency: string, offer: Offer, text: string, url?: string): boolean {
    const offers = this.offersOf(currency);
    const key = hex.encode(offer.bytes);
    if (offers.has(key)) return false;
    offers.set(key, { offer: text, ...(url !== undefined && { url }) });
    return true;
  }

  get(currency: string, offer: Offer | Uint8Array): RegisteredOffer | undefined {
    return this.byCurrency.get(currency)?.get(hex.encode('bytes' in offer ? offer.bytes : offer));
  }

  /** False when the offer is not registered. */
  setUrl(currency: string, offer: Offer, url?: string): boolean {
    const entry = this.get(currency, offer);
    if (entry === undefined) return false;
    if (url === undefined) delete entry.url;
    else entry.url = url;
    return true;
  }

  delete(currency: string, offer: Offer): boolean {
    return this.byCurrency.get(currency)?.delete(hex.encode(offer.bytes)) ?? false;
  }
}
