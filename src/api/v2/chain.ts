// v2 chain endpoints: /v2/chain/...
import type { ChainRegistry } from '../../chains/backend.ts';
import type { Router } from '../http/router.ts';
import { bodyObject, requireHex, requireTxid } from '../http/validate.ts';
import { broadcastTransaction, type RefundTimeoutLookup, chainOf, feeEstimations, fetchTransaction, heights } from '../chain-routes.ts';

export function chainRoutesV2(router: Router, chains: ChainRegistry, refundTimeout?: RefundTimeoutLookup): void {
  router.get('/v2/chain/fees', async () => ({ body: await feeEstimations(chains) }));
  router.get('/v2/chain/heights', async () => ({ body: await heights(chains) }));
  router.get('/v2/chain/{currency}/fee', async ({ params }) => ({
    body: { fee: await chainOf(chains, params.currency).feeRate() },
  }));
  router.get('/v2/chain/{currency}/height', async ({ params }) => ({
    body: { height: await chainOf(chains, params.currency).height() },
  }));
  router.get('/v2/chain/{currency}/transaction/{id}', async ({ params }) => {
    const chain = chainOf(chains, params.currency);
    return { body: await fetchTransaction(chain, requireTxid(params.id, 'id'), 404) };
  });
  router.post('/v2/chain/{currency}/transaction', async ({ params, body }) => {
    const chain = chainOf(chains, params.currency);
    const hex = requireHex(bodyObject(body), 'hex');
    return { status: 201, body: { id: await broadcastTransaction(chain, hex, refundTimeout) } };
  });
}
