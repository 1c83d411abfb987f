// The `webhook` field of the v2 create calls, around the create routes themselves: checked (shape, scheme, SSRF)
// before the swap is created, so a refused webhook creates nothing; registered once the swap exists, and told
// the swap's status at that moment (the status published at creation came before the hook existed).
import type { Router } from '../api/http/router.ts';
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import { parseWebhook, type WebhookPolicy } from './hook.ts';
import type { Webhooks } from './webhooks.ts';

export const createPaths = ['/v2/swap/submarine', '/v2/swap/reverse', '/v2/swap/chain'];

export function webhookRoutes(router: Router, swaps: SwapService, webhooks: Webhooks, policy: WebhookPolicy): void {
  for (const path of createPaths) {
    router.wrap('POST', path, (create) => async (request) => {
      const body = request.body;
      const hook = typeof body === 'object' && body !== null && !Array.isArray(body) ? await parseWebhook((body as Record<string, unknown>).webhook, policy) : undefined;
      const reply = await create(request);
      const id = (reply.body as { id?: unknown } | undefined)?.id;
      if (hook && reply.status === 201 && typeof id === 'string') {
        await webhooks.register(id, hook);
        const status = await swaps.status(id);
        if (status) webhooks.announce(id, status.status);
      }
      return reply;
    });
  }
}
