// v2 chain endpoints: /v2/chain/...
import type { Router } from '../http/router.ts';
import { bodyObject, requireHex, requireTxid } from '../http/validate.ts';
import { broadcastTransaction, type ChainReadings, type RefundTimeoutLookup, feeEstimations, fetchTransaction, heights } from '../chain-routes.ts';
import { allContracts, currencyContracts } from '../contract-routes.ts';

export function chainRoutesV2(router: Router, chains: ChainReadings, refundTimeout?: RefundTimeoutLookup): void {
  router.get('/v2/chain/fees', async () => ({ body: await feeEstimations(chains) }));
  router.get('/v2/chain/heights', async () => ({ body: await heights(chains) }));
  router.get('/v2/chain/contracts', () => ({ body: allContracts(chains.evm) }));
  router.get('/v2/chain/{currency}/fee', async ({ params }) => ({
    body: { fee: await chains.of(params.currency).feeRate() },
  }));
  router.get('/v2/chain/{currency}/height', async ({ params }) => ({
    body: { height: await chains.of(params.currency).height() },
  }));
  router.get('/v2/chain/{currency}/contracts', ({ params }) => ({ body: currencyContracts(chains.evm, params.currency) }));
  router.get('/v2/chain/{currency}/transaction/{id}', async ({ params }) => {
    const chain = chains.utxo(params.currency);
    return { body: await fetchTransaction(chain, requireTxid(params.id, 'id'), 404) };
  });
  router.post('/v2/chain/{currency}/transaction', async ({ params, body }) => {
    const chain = chains.utxo(params.currency);
    const hex = requireHex(bodyObject(body), 'hex');
    return { status: 201, body: { id: await broadcastTransaction(chain, hex, refundTimeout) } };
  });
}
