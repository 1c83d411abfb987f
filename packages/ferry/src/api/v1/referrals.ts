// v1 GET /referrals/query: a partner's referral report, for HMAC-authenticated calls only.
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import { HttpError } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { authenticate, type ApiCredential } from '../auth/hmac.ts';

/** A partner's API credential; referralId limits its report to that partner's swaps (absent: every referral id). */
export interface ReferralCredential extends ApiCredential {
  referralId?: string;
}

export function referralRoutesV1(router: Router, swaps: SwapService, credentials: readonly ReferralCredential[]): void {
  router.get('/referrals/query', async (request) => {
    // Authentication first: an unauthenticated caller learns nothing, not even whether reports are served.
    const credential = authenticate(request, credentials);
    if (!swaps.referralReport) throw new HttpError(501, 'the swap engine does not keep referral reports');
    return { body: await swaps.referralReport(credential.referralId) };
  });
}
