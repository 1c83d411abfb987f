// Audit: concurrent invoice assignment on one submarine swap (a class of bug the reference backend fixed in 2026).
// Many parallel POST /v2/swap/submarine/{id}/invoice and v1 /setinvoice calls, each with a different invoice for
// the swap's preimage hash (two of them payable: alice's and bob's, both knowing the preimage), race on the real
// engine and devnet. Exactly one wins, every other call gets a 4xx with a text, and after the lockup only the
// winner's invoice is ever paid: the other payable one stays open.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { encodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { rest } from '../lightning/helpers.ts';
import { newKeyPair, newPreimage } from '../engine/client.ts';
import { startWorld, type World } from '../engine/world.ts';
import { call, startApi, type TestApi } from './swap-api-harness.ts';

let world: World;
let api: TestApi;
before(async () => {
  world = await startWorld();
  api = await startApi(world.engine);
});
after(async () => {
  await api?.close();
  await world?.close();
  assert.deepEqual(api?.errors ?? [], [], 'no request failed with an internal error');
});

/** An invoice of a devnet node for this preimage, so that node can settle it when paid. */
async function nodeInvoice(node: 'alice' | 'bob', preimage: Uint8Array, sat: number): Promise<string> {
  const { body } = await rest<{ payment_request: string }>(world.devnet.info.lightning[node], 'POST', '/v1/invoices', {
    value: sat,
    r_preimage: Buffer.from(preimage).toString('base64'),
  });
  return body.payment_request;
}

async function invoiceState(node: 'alice' | 'bob', preimageHash: string): Promise<string> {
  return (await rest<{ state: string }>(world.devnet.info.lightning[node], 'GET', `/v1/invoice/${preimageHash}`)).body.state;
}

test('parallel invoices for one swap over v2 and v1: one wins, the rest 4xx, only the winner is paid', async () => {
  const { preimage, preimageHash } = newPreimage();
  const created = await call(api, 'POST', '/v2/swap/submarine', {
    from: 'BTC',
    to: 'BTC',
    preimageHash,
    refundPublicKey: hex.encode(newKeyPair().publicKey),
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const id = created.json.id as string;

  const alice = await nodeInvoice('alice', preimage, 30_000);
  const bob = await nodeInvoice('bob', preimage, 31_000);
  // Strangers' invoices for the same hash: valid signatures, other amounts, unpayable.
  const forged = Array.from({ length: 10 }, (_, i) =>
    encodeBolt11(
      {
        network: 'bcrt',
        amountMsat: BigInt(32_000 + i) * 1000n,
        timestamp: Math.floor(Date.now() / 1000),
        paymentHash: preimageHash,
        paymentSecret: hex.encode(randomBytes(32)),
        description: 'race',
        expiry: 3600,
      },
      randomBytes(32),
    ),
  );
  const invoices = [alice, ...forged.slice(0, 5), bob, ...forged.slice(5)];
  const answers = await Promise.all(
    invoices.map((invoice, i) =>
      i % 2 === 0 ? call(api, 'POST', `/v2/swap/submarine/${id}/invoice`, { invoice }) : call(api, 'POST', '/setinvoice', { id, invoice }),
    ),
  );

  const winners = answers.flatMap((answer, i) => (answer.status < 300 ? [invoices[i]] : []));
  assert.equal(winners.length, 1, JSON.stringify(answers.map((a) => [a.status, a.json])));
  for (const answer of answers.filter((a) => a.status >= 300)) {
    assert.ok(answer.status >= 400 && answer.status < 500, JSON.stringify(answer));
    assert.equal(typeof answer.json.error, 'string', JSON.stringify(answer.json));
  }
  const [winner] = winners;
  const status = (await call(api, 'GET', `/v2/swap/${id}`)).json;
  assert.equal(status.status, 'invoice.set');

  // Lock up what the winner asked for; Ferry pays the winner's invoice and nothing else.
  const expectedAmount = answers.find((answer) => answer.status < 300)!.json.expectedAmount as number;
  assert.equal(typeof expectedAmount, 'number');
  const address = created.json.address as string;
  await world.user.sendToAddress(address, satToBtc(expectedAmount));
  await world.mine();
  const end = await Promise.race([
    world.waitForStatus(id, 'transaction.claim.pending', 30_000),
    world.waitForStatus(id, 'invoice.failedToPay', 30_000),
  ]);
  const aliceState = await invoiceState('alice', preimageHash);
  const bobState = await invoiceState('bob', preimageHash);
  if (winner === alice) assert.deepEqual([end.status, aliceState, bobState], ['transaction.claim.pending', 'SETTLED', 'OPEN']);
  else if (winner === bob) assert.deepEqual([end.status, aliceState, bobState], ['transaction.claim.pending', 'OPEN', 'SETTLED']);
  else assert.deepEqual([end.status, aliceState, bobState], ['invoice.failedToPay', 'OPEN', 'OPEN']);
  console.log(`# winner: ${winner === alice ? 'alice' : winner === bob ? 'bob' : 'a forged invoice'}, ${end.status}`);
});
