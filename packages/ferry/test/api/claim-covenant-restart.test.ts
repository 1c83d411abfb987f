// Covenant claim registrations outlive a Ferry restart: the receiver registers its preimage with `ferry start` and
// goes offline, Ferry stops (or is killed right after broadcasting its lockup, or with its lockup recorded and the
// claim built but not broadcast), and the next `ferry start` on the same data directory claims to the committed
// address from the registration in its database. The address receives the committed amount, and the invoice settles
// only with the preimage the claim revealed on chain. The devnet runs as its own process so that Ferry's processes
// come and go around it (crash-support.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import type { LndRestClient } from '../../src/lightning/lnd/client.ts';
import { stopFerry, untilCrash, useCrashWorld } from '../swaps/crash-support.ts';
import { SwapApi } from '../helpers/swap-api.ts';
import { CovenantReceiver, lockupOf } from './covenant-receiver.ts';

const world = useCrashWorld('ferry-covenant-restart-');

const covenant = () => new CovenantReceiver(world.info);
const registeredSwap = (api: SwapApi, invoiceAmount: number) => covenant().registeredSwap(api, invoiceAmount);

/**
 * The next `ferry start` claims the swap to the receiver's address (the committed amount, checked on chain), and the
 * invoice `paid` is settled with the preimage the claim revealed.
 */
async function claimedByNextFerry(id: string, expected: number, preimage: Uint8Array, paid: ReturnType<LndRestClient['payInvoice']>): Promise<void> {
  const ferry = await world.startFerryProcess();
  const claimTx = await covenant().spenderOf(await lockupOf(ferry.apiUrl, id), 60_000);
  await covenant().assertPaid(claimTx, expected);
  const payment = await paid;
  assert.equal(payment.status, 'SUCCEEDED', 'the invoice was settled');
  assert.equal(payment.preimage, hex.encode(preimage), 'with the preimage the claim revealed');
  await stopFerry(ferry);
}

test('registered, then Ferry restarts before it locks: the restarted Ferry locks and claims to the address', async () => {
  await world.ready;
  const first = await world.startFerryProcess();
  const { created, preimage, expected } = await registeredSwap(new SwapApi(first.apiUrl), 41_000);
  await stopFerry(first);
  // The receiver is offline from here on; Ferry comes back without anything but its database to remember it by.

  const paid = covenant().payer().payInvoice({ paymentRequest: created.invoice, timeoutSeconds: 120, feeLimitMsat: 10_000n });
  await claimedByNextFerry(created.id, expected, preimage, paid);
});

test('registered, Ferry killed right after its lockup went out: the restarted Ferry claims to the address', async () => {
  await world.ready;
  const crashing = await world.startFerryProcess('reverse.lockup-broadcast');
  const { created, preimage, expected } = await registeredSwap(new SwapApi(crashing.apiUrl), 43_000);
  const paid = covenant().payer().payInvoice({ paymentRequest: created.invoice, timeoutSeconds: 120, feeLimitMsat: 10_000n });
  await untilCrash(crashing, 'reverse.lockup-broadcast');
  // The lockup went out; the kill came before Ferry recorded it, so its claimer never saw it locked.

  await claimedByNextFerry(created.id, expected, preimage, paid);
});

test('registered, Ferry killed with its lockup recorded and the claim built: the restarted Ferry claims at its start', async () => {
  await world.ready;
  const crashing = await world.startFerryProcess('covenant-claim.built');
  const { created, preimage, expected } = await registeredSwap(new SwapApi(crashing.apiUrl), 47_000);
  const paid = covenant().payer().payInvoice({ paymentRequest: created.invoice, timeoutSeconds: 120, feeLimitMsat: 10_000n });
  await untilCrash(crashing, 'covenant-claim.built');
  // No block is mined: the recorded lockup sees no further transition, only the engine's start can claim it.
  await claimedByNextFerry(created.id, expected, preimage, paid);
});
