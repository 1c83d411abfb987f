// v1 POST /routinghints {symbol, routingNode}: route hints through the private channels of the operator's node with
// `routingNode`, for a wallet whose node is reachable only that way (the reference still answers it). A symbol with no
// Lightning node, or a backend that cannot tell, has no hints: an empty list, as the reference answers.
import type { LightningBackend } from '../../lightning/backend.ts';
import type { RoutingHintsBody } from '@ferry/sdk/protocol/wire.js';
import { badRequest } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { bodyObject, requireString } from '../http/validate.ts';

const pubkeyPattern = /^0[23][0-9a-fA-F]{64}$/;

export function routingHintsRouteV1(router: Router, lightning: Record<string, LightningBackend>): void {
  router.post('/routinghints', async ({ body }) => {
    const input = bodyObject(body);
    const symbol = requireString(input, 'symbol');
    const routingNode = requireString(input, 'routingNode');
    if (!pubkeyPattern.test(routingNode)) throw badRequest('invalid parameter: routingNode');
    const backend = Object.hasOwn(lightning, symbol) ? lightning[symbol] : undefined;
    const hints = (await backend?.routingHints?.(routingNode.toLowerCase())) ?? [];
    const answer: RoutingHintsBody = { routingHints: hints.map((hopHintsList) => ({ hopHintsList })) };
    return { body: answer };
  });
}
