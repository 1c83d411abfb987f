// BOLT12 offers registered for reverse swaps (src/lightning/bolt12/registry.ts), by currency and the SHA256 of the
// offer's bytes, with their optional webhook URL.
import type { Queryable } from '../types.ts';
import type { Clock } from './common.ts';

export interface OfferRow {
  currency: string;
  offerId: string;
  offer: string;
  url?: string;
}

interface Row {
  currency: string;
  offer_id: string;
  offer: string;
  url: string | null;
}

const fromRow = (row: Row): OfferRow => ({ currency: row.currency, offerId: row.offer_id, offer: row.offer, ...(row.url !== null && { url: row.url }) });

export class OfferRepository {
  constructor(
    private readonly q: Queryable,
    private readonly now: Clock,
  ) {}

  /** False when the offer is registered for the currency already. */
  async insert(row: OfferRow): Promise<boolean> {
    const result = await this.q.execute(
      `INSERT INTO bolt12_offers (currency, offer_id, offer, url, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (currency, offer_id) DO NOTHING`,
      [row.currency, row.offerId, row.offer, row.url ?? null, this.now()],
    );
    return result.changes > 0;
  }

  async get(currency: string, offerId: string): Promise<OfferRow | undefined> {
    const rows = await this.q.query<Row>('SELECT currency, offer_id, offer, url FROM bolt12_offers WHERE currency = $1 AND offer_id = $2', [currency, offerId]);
    return rows[0] && fromRow(rows[0]);
  }

  /** The offer under any currency (an invoice request names the offer, not the currency). */
  async byOfferId(offerId: string): Promise<OfferRow | undefined> {
    const rows = await this.q.query<Row>('SELECT currency, offer_id, offer, url FROM bolt12_offers WHERE offer_id = $1 ORDER BY currency LIMIT 1', [offerId]);
    return rows[0] && fromRow(rows[0]);
  }

  /** False when the offer is not registered. */
  async setUrl(currency: string, offerId: string, url: string | undefined): Promise<boolean> {
    const result = await this.q.execute('UPDATE bolt12_offers SET url = $3 WHERE currency = $1 AND offer_id = $2', [currency, offerId, url ?? null]);
    return result.changes > 0;
  }

  /** False when the offer is not registered. */
  async delete(currency: string, offerId: string): Promise<boolean> {
    return (await this.q.execute('DELETE FROM bolt12_offers WHERE currency = $1 AND offer_id = $2', [currency, offerId])).changes > 0;
  }
}
