// Offers registered for BOLT12 reverse swaps, per Lightning currency, with the webhook (if any) that answers their
// invoice requests. Kept in the database (table bolt12_offers), so they survive restarts and every instance sees
// them; an offer is known by the SHA256 of its bytes, which every invoice request for it mirrors.
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import type { OfferRow } from '../../db/repositories/offers.ts';
import type { Offer } from '@ferry/sdk/lightning/bolt12/offer.js';

export interface RegisteredOffer {
  offer: string;
  url?: string;
}

/** Where offers are kept: the database's OfferRepository, or MemoryOfferRecords for an API without one. */
export interface OfferRecords {
  insert(row: OfferRow): Promise<boolean>;
  get(currency: string, offerId: string): Promise<OfferRow | undefined>;
  byOfferId(offerId: string): Promise<OfferRow | undefined>;
  setUrl(currency: string, offerId: string, url: string | undefined): Promise<boolean>;
  delete(currency: string, offerId: string): Promise<boolean>;
}

/** The id an offer is kept under: hex SHA256 of its TLV bytes. */
export const offerIdOf = (bytes: Uint8Array): string => hex.encode(sha256(bytes));

const registered = (row: OfferRow | undefined): RegisteredOffer | undefined => row && { offer: row.offer, ...(row.url !== undefined && { url: row.url }) };

export class OfferRegistry {
  constructor(private readonly records: OfferRecords = new MemoryOfferRecords()) {}

  /** False when the offer is registered already. */
  add(currency: string, offer: Offer, text: string, url?: string): Promise<boolean> {
    return this.records.insert({ currency, offerId: offerIdOf(offer.bytes), offer: text, ...(url !== undefined && { url }) });
  }

  async get(currency: string, offer: Offer | Uint8Array): Promise<RegisteredOffer | undefined> {
    return registered(await this.records.get(currency, offerIdOf('bytes' in offer ? offer.bytes : offer)));
  }

  /** The offer of these bytes under whichever currency it was registered for. */
  async find(offerBytes: Uint8Array): Promise<RegisteredOffer | undefined> {
    return registered(await this.records.byOfferId(offerIdOf(offerBytes)));
  }

  /** False when the offer is not registered. */
  setUrl(currency: string, offer: Offer, url?: string): Promise<boolean> {
    return this.records.setUrl(currency, offerIdOf(offer.bytes), url);
  }

  delete(currency: string, offer: Offer): Promise<boolean> {
    return this.records.delete(currency, offerIdOf(offer.bytes));
  }
}

/** Offers in this process only: for an API served without a database (tests, tools). */
export class MemoryOfferRecords implements OfferRecords {
  private readonly rows = new Map<string, OfferRow>();

  async insert(row: OfferRow): Promise<boolean> {
    const key = `${row.currency}/${row.offerId}`;
    if (this.rows.has(key)) return false;
    this.rows.set(key, { ...row });
    return true;
  }

  async get(currency: string, offerId: string): Promise<OfferRow | undefined> {
    return this.rows.get(`${currency}/${offerId}`);
  }

  async byOfferId(offerId: string): Promise<OfferRow | undefined> {
    return [...this.rows.values()].find((row) => row.offerId === offerId);
  }

  async setUrl(currency: string, offerId: string, url: string | undefined): Promise<boolean> {
    const row = this.rows.get(`${currency}/${offerId}`);
    if (row === undefined) return false;
    if (url === undefined) delete row.url;
    else row.url = url;
    return true;
  }

  async delete(currency: string, offerId: string): Promise<boolean> {
    return this.rows.delete(`${currency}/${offerId}`);
  }
}
