// Ferry's CLN adapter on a node without the hold plugin (a real lightningd reached over its socket, as in
// test/real-nodes/): `listholdinvoices` is an unknown command there (-32601), so invoice lookups answer from the
// node's own invoices instead of failing; any other refusal of listholdinvoices still reaches the caller.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClnBackend } from '../../src/lightning/cln/client.ts';
import { ClnRestError, type ClnCaller } from '../../src/lightning/cln/transport.ts';

const HASH = 'ab'.repeat(32);

function nodeWithout(holdError: ClnRestError): { backend: ClnBackend; calls: string[] } {
  const calls: string[] = [];
  const transport: ClnCaller = {
    call: async <T>(method: string): Promise<T> => {
      calls.push(method);
      if (method === 'listholdinvoices') throw holdError;
      if (method === 'listinvoices') return { invoices: [{ payment_hash: HASH, status: 'paid', amount_received_msat: 5_000 }] } as T;
      throw new ClnRestError(0, -32601, `Unknown command '${method}'`);
    },
  };
  return { backend: new ClnBackend({ url: '', rune: '', transport }), calls };
}

test('no hold plugin: lookups and the pending list answer from listinvoices', async () => {
  const { backend, calls } = nodeWithout(new ClnRestError(0, -32601, "Unknown command 'listholdinvoices'"));
  assert.deepEqual(await backend.lookupInvoice(HASH), { paymentHash: HASH, state: 'SETTLED', amountPaidMsat: 5_000n, htlcExpiryHeights: [] });
  assert.deepEqual(await backend.listPendingInvoices(), []);
  assert.ok(calls.includes('listholdinvoices') && calls.includes('listinvoices'));
});

test('another refusal of listholdinvoices is not taken for a missing plugin', async () => {
  const { backend } = nodeWithout(new ClnRestError(0, -1, 'database is locked'));
  await assert.rejects(backend.lookupInvoice(HASH), /database is locked/);
});
