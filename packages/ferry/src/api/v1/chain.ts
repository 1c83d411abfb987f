// v1 chain endpoints (deprecated API, kept for existing integrations).
import type { Router } from '../http/router.ts';
import { bodyObject, requireHex, requireString, requireTxid } from '../http/validate.ts';
import { broadcastTransaction, type ChainReadings, type RefundTimeoutLookup, feeEstimations, fetchTransaction } from '../chain-routes.ts';
import { contractsV1 } from '../contract-routes.ts';

export function chainRoutesV1(router: Router, chains: ChainReadings, refundTimeout?: RefundTimeoutLookup): void {
  router.get('/getfeeestimation', async () => ({ body: await feeEstimations(chains) }));
  router.get('/getcontracts', () => ({ body: contractsV1(chains.evm) }));
  router.post('/gettransaction', async ({ body }) => {
    const input = bodyObject(body);
    const chain = chains.utxo(requireString(input, 'currency'));
    const txid = requireTxid(requireString(input, 'transactionId'), 'transactionId');
    const tx = await fetchTransaction(chain, txid, 400);
    return { body: { transactionHex: tx.hex } };
  });
  router.post('/broadcasttransaction', async ({ body }) => {
    const input = bodyObject(body);
    const chain = chains.utxo(requireString(input, 'currency'));
    const hex = requireHex(input, 'transactionHex');
    return { body: { transactionId: await broadcastTransaction(chain, hex, refundTimeout) } };
  });
}
