// v1 calls about an existing submarine swap: /swaprates, /setinvoice, /getswaptransaction. They work for the
// Taproot swaps created over v2; every semantic check is the engine's, as for the v2 routes.
import type { SwapService } from '@ferry/sdk/protocol/index.js';
import { statusesReachedBy } from '@ferry/sdk/swaps/derive.js';
import { submarineMachine } from '@ferry/sdk/swaps/submarine-machine.js';
import type { Router } from '../http/router.ts';
import { bodyObject, optionalString, requireString, requireSwapId } from '../http/validate.ts';
import { v1Call } from './answers.ts';

/** Once the user's coins are seen, the amount to lock is settled: v1 answers a late invoice with an empty object. */
const LOCKED = [...statusesReachedBy(submarineMachine, 'lockup.mempool'), ...statusesReachedBy(submarineMachine, 'lockup.confirmed')];

const swapIdOf = (input: Record<string, unknown>) => requireSwapId(requireString(input, 'id'));

export function swapCallRoutesV1(router: Router, swaps: SwapService): void {
  router.post('/swaprates', ({ body }) =>
    v1Call(async () => {
      const id = swapIdOf(bodyObject(body));
      return { body: await swaps.submarineInvoiceAmount(id) };
    }),
  );

  router.post('/setinvoice', ({ body }) =>
    v1Call(async () => {
      const input = bodyObject(body);
      const id = swapIdOf(input);
      const invoice = requireString(input, 'invoice');
      const pairHash = optionalString(input, 'pairHash');
      // Read before the call: setting the invoice moves the swap on. A lockup seen in between only means the
      // client gets the (still correct) amount fields it no longer needs.
      const before = await swaps.status(id);
      const answer = await swaps.setSubmarineInvoice(id, invoice, pairHash);
      return { body: before !== undefined && LOCKED.includes(before.status) ? {} : answer };
    }),
  );

  router.post('/getswaptransaction', ({ body }) =>
    v1Call(async () => {
      const id = swapIdOf(bodyObject(body));
      const { hex, timeoutBlockHeight, timeoutEta } = await swaps.submarineTransaction(id);
      return { body: { transactionHex: hex, timeoutBlockHeight, ...(timeoutEta !== undefined && { timeoutEta }) } };
    }),
  );
}
