// The smaller v2 calls wallets make around their swaps: service infos and warnings, swap metadata, the reverse invoice
// expiry range, a reverse swap's BIP-21 (its receiver's signed address, src/engine/swap-types/reverse-hint.ts), a pair's
// fee history (src/engine/fee-history.ts). The EVM refund signatures (GET .../refund) are the swap routes'.
import type { MetadataRequest, SwapService } from '@ferry/sdk/protocol/index.js';
import { HttpError, badRequest, notFound } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { requireSwapId } from '../http/validate.ts';
import { documented } from '../schema/documented.ts';
import type { JsonSchema } from '../schema/validator.ts';
import { engineCall } from './swap-errors.ts';

export interface ServiceNotices {
  /** GET /v2/infos: what the operator wants wallets to show. */
  infos?: readonly string[];
  /** GET /v2/warnings: service warnings (e.g. a degraded chain). */
  warnings?: readonly string[];
}

const strings: JsonSchema = { type: 'array', items: { type: 'string' } };
const metadataRequest: JsonSchema = {
  type: 'object',
  required: ['metadata'],
  additionalProperties: false,
  properties: { metadata: { type: 'string', pattern: '^(?:[0-9a-fA-F]{2})+$', minLength: 2, maxLength: 2048 } },
};
const swapTypes = ['submarine', 'reverse', 'chain'];
const series: JsonSchema = { type: 'array', items: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 } };
const pairStats: JsonSchema = { type: 'object', required: ['fee'], properties: { fee: series, maximalRoutingFee: series } };
// A BOLT11 invoice is bech32: letters and digits only, and never longer than a few kilobytes.
const invoicePattern = /^(lightning:)?ln[a-z0-9]{1,7000}$/i;

export function swapExtraRoutes(router: Router, swaps: SwapService, notices: ServiceNotices = {}): void {
  documented(router, 'GET', '/v2/infos', { summary: 'Information the operator wants wallets to show', tags: ['Info'], responses: { 200: strings } }, () => ({
    body: [...(notices.infos ?? [])],
  }));
  documented(router, 'GET', '/v2/warnings', { summary: 'Service warnings', tags: ['Info'], responses: { 200: strings } }, () => ({
    body: [...(notices.warnings ?? [])],
  }));

  documented<MetadataRequest>(
    router,
    'PATCH',
    '/v2/swap/{id}/metadata',
    { summary: 'Keeps a hex string with the swap, replacing any earlier one; restore answers it', tags: ['Swap'], body: metadataRequest, responses: { 200: { type: 'object' } } },
    async ({ params }, body) => {
      const id = requireSwapId(params.id);
      if (!swaps.setMetadata) throw new HttpError(501, 'the swap engine does not keep metadata');
      return { body: await engineCall(() => swaps.setMetadata!(id, body.metadata.toLowerCase())) };
    },
  );

  documented(router, 'GET', '/v2/swap/reverse/expiry', { summary: 'Invoice expiry range (seconds) of each reverse pair', tags: ['Reverse Swap'] }, async () => {
    if (!swaps.reverseInvoiceExpiry) throw new HttpError(501, 'the swap engine does not report invoice expiries');
    return { body: await engineCall(() => swaps.reverseInvoiceExpiry!()) };
  });

  documented(router, 'GET', '/v2/swap/reverse/{invoice}/bip21', { summary: "A reverse swap invoice's BIP-21 from its magic routing hint", tags: ['Reverse Swap'] }, async ({ params }) => {
    if (!invoicePattern.test(params.invoice)) throw badRequest('invalid parameter: invoice');
    const invoice = params.invoice.toLowerCase().replace(/^lightning:/, '');
    const found = swaps.reverseBip21 === undefined ? undefined : await engineCall(() => swaps.reverseBip21!(invoice));
    // The reference's answer when the swap is unknown or was created without a signed address.
    if (found === undefined) throw notFound('no BIP-21 for swap');
    return { body: found };
  });

  documented(
    router,
    'GET',
    '/v2/swap/{swap_type}/stats/{from}/{to}',
    { summary: "A pair's fee over the last week, sampled every ten minutes (referral header \"pro\")", tags: ['Historical Data'], responses: { 200: pairStats } },
    async ({ params, headers }) => {
      if (headers.referral !== 'pro') throw badRequest('invalid referral: the referral header must be "pro"');
      if (!swapTypes.includes(params.swap_type)) throw badRequest(`invalid swap type: ${params.swap_type}`);
      const pairs: Record<string, Record<string, unknown>> = await engineCall<Record<string, Record<string, unknown>>>(() =>
        params.swap_type === 'submarine' ? swaps.submarinePairs() : params.swap_type === 'reverse' ? swaps.reversePairs() : swaps.chainPairs(),
      );
      if (pairs[params.from]?.[params.to] === undefined) throw notFound('invalid pair');
      if (!swaps.pairStats) throw new HttpError(501, 'historical data not available');
      const stats = await engineCall(() => swaps.pairStats!(params.swap_type, params.from, params.to));
      // The pair is served, but no instance has sampled it yet (its engine has not started on this database).
      if (stats === undefined) throw notFound('invalid pair: no fee history for it yet');
      return { body: stats };
    },
  );
}
