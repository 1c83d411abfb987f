// v2 referral calls for partners, authenticated as v1's GET /referrals/query (HMAC over TS, method and path,
// compared in constant time): the partner's referral id, the fees its swaps earned by month, and statistics
// (Ferry charges no extra fees, so /referral/stats/extra is empty).
import type { ReferralReport, SwapService } from '@ferry/sdk/protocol/index.js';
import { authenticate } from '../auth/hmac.ts';
import { HttpError } from '../http/errors.ts';
import type { Request, Router } from '../http/router.ts';
import { documented } from '../schema/documented.ts';
import type { ReferralCredential } from '../v1/referrals.ts';

const tags = ['Referral'];

export function referralRoutesV2(router: Router, swaps: SwapService, credentials: readonly ReferralCredential[]): void {
  // Authentication first: an unauthenticated caller learns nothing, not even whether reports are served.
  const readReport = async (request: Request): Promise<{ credential: ReferralCredential; report: ReferralReport }> => {
    const credential = authenticate(request, credentials);
    if (!swaps.referralReport) throw new HttpError(501, 'the swap engine does not keep referral reports');
    return { credential, report: await swaps.referralReport(credential.referralId) };
  };

  documented(router, 'GET', '/v2/referral', { summary: 'The referral id of the API key', tags }, (request) => {
    const credential = authenticate(request, credentials);
    // A credential without its own referral id reads every partner's report: it has no id to use in swaps.
    if (credential.referralId === undefined) throw new HttpError(404, 'this API key has no referral id of its own');
    return { body: { id: credential.referralId } };
  });

  documented(router, 'GET', '/v2/referral/fees', { summary: 'Fees earned per year, month and currency (sat)', tags }, async (request) => {
    const { credential, report } = await readReport(request);
    // year → month → referral → currency, folded to the partner's own: year → month → currency.
    const fees: Record<string, Record<string, Record<string, number>>> = {};
    for (const [year, months] of Object.entries(report)) {
      for (const [month, referrals] of Object.entries(months)) {
        for (const [referral, currencies] of Object.entries(referrals)) {
          if (credential.referralId !== undefined && referral !== credential.referralId) continue;
          const target = ((fees[year] ??= {})[month] ??= {});
          for (const [currency, amount] of Object.entries(currencies)) target[currency] = (target[currency] ?? 0) + amount;
        }
      }
    }
    return { body: fees };
  });

  documented(router, 'GET', '/v2/referral/stats', { summary: 'Volume, swap counts and failure rates per year and month', tags }, async (request) => {
    const credential = authenticate(request, credentials);
    if (!swaps.referralStats) throw new HttpError(501, 'the swap engine does not keep referral statistics');
    return { body: await swaps.referralStats(credential.referralId) };
  });

  documented(router, 'GET', '/v2/referral/stats/extra', { summary: 'Extra fees per year and month (Ferry charges none: empty)', tags }, async (request) => {
    await readReport(request);
    return { body: {} };
  });

}
