// Ferry's CLN adapter on a node without the hold plugin's gRPC (a real lightningd reached over its socket, as in
// test/real-nodes/): the plugin's RPC is never asked (a real node without the plugin answers -32601), invoice lookups
// and the pending list answer from the node's own invoices, and a refusal of listinvoices reaches the caller.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClnBackend } from '../../src/lightning/cln/client.ts';
import { ClnRestError, type ClnCaller } from '../../src/lightning/cln/transport.ts';

const HASH = 'ab'.repeat(32);

function nodeWithout(listinvoicesError?: ClnRestError): { backend: ClnBackend; calls: string[] } {
  const calls: string[] = [];
  const transport: ClnCaller = {
    call: async <T>(method: string): Promise<T> => {
      calls.push(method);
      if (method === 'listinvoices') {
        if (listinvoicesError !== undefined) throw listinvoicesError;
        return { invoices: [{ payment_hash: HASH, status: 'paid', amount_received_msat: 5_000 }] } as T;
      }
      throw new ClnRestError(0, -32601, `Unknown command '${method}'`);
    },
  };
  return { backend: new ClnBackend({ url: '', rune: '', transport }), calls };
}

test('no hold plugin: lookups and the pending list answer from listinvoices, listholdinvoices is never called', async () => {
  const { backend, calls } = nodeWithout();
  assert.equal(backend.holdInvoices, false);
  assert.deepEqual(await backend.lookupInvoice(HASH), { paymentHash: HASH, state: 'SETTLED', amountPaidMsat: 5_000n, htlcExpiryHeights: [] });
  assert.deepEqual(await backend.listPendingInvoices(), []);
  assert.ok(calls.includes('listinvoices'));
  assert.ok(!calls.includes('listholdinvoices'));
});

test('a refusal of listinvoices reaches the caller', async () => {
  const { backend } = nodeWithout(new ClnRestError(0, -1, 'database is locked'));
  await assert.rejects(backend.lookupInvoice(HASH), /database is locked/);
});
