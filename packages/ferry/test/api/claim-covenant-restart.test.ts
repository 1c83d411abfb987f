// Covenant claim registrations outlive a Ferry restart: the receiver registers its preimage with `ferry start` and
// goes offline, Ferry stops (or is killed right after broadcasting its lockup, or with its lockup recorded and the
// claim built but not broadcast), and the next `ferry start` on the same data directory claims to the committed address from the registration in its database. The address receives the
// committed amount, and the invoice settles only with the preimage the claim revealed on chain. The devnet runs as
// its own process so that Ferry's processes come and go around it (crash-support.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from 'liquidjs-lib';
import { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { committedAmount } from '@ferry/sdk/chains/liquid/covenant.js';
import { policyAsset } from '@ferry/sdk/chains/liquid/network.js';
import { LndRestClient } from '../../src/lightning/lnd/client.ts';
import { stopFerry, untilCrash, useCrashWorld } from '../swaps/crash-support.ts';
import { SwapApi, newKeyPair, newPreimage } from '../helpers/swap-api.ts';

const world = useCrashWorld('ferry-covenant-restart-');

const rpc = () => {
  const info = world.info.elements;
  const elements = new CoreRpcClient({ url: info.rpcUrl, user: info.rpcUser, password: info.rpcPassword });
  return { elements, wallet: elements.wallet(info.wallets.user) };
};

/** A covenant swap to a fresh address of the user wallet, and the registration its receiver hands Ferry. */
async function registeredSwap(api: SwapApi, invoiceAmount: number) {
  const { wallet } = rpc();
  const claim = newKeyPair();
  const { preimage, preimageHash } = newPreimage();
  const address = await wallet.getNewAddress();
  const body = { from: 'BTC', to: 'L-BTC', invoiceAmount, preimageHash: hex.encode(preimageHash), claimPublicKey: hex.encode(claim.publicKey), address, claimCovenant: true };
  const created = await api.expect('POST', '/v2/swap/reverse', body, 201);
  const registration = {
    address,
    preimage: hex.encode(preimage),
    tree: created.swapTree,
    blindingKey: created.blindingKey,
    claimPublicKey: hex.encode(claim.publicKey),
    refundPublicKey: created.refundPublicKey,
  };
  assert.deepEqual(await api.expect('POST', '/v2/swap/covenant', registration, 201), {});
  return { created, preimage, address, expected: committedAmount(created.swapTree.covenantClaimLeaf.output)! };
}

/** The mempool transaction that spends `txid`, once it is there. */
async function spenderOf(txid: string, timeoutMs: number): Promise<Transaction> {
  const { elements } = rpc();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const candidate of await elements.call<string[]>('getrawmempool', [])) {
      const tx = Transaction.fromHex(await elements.call<string>('getrawtransaction', [candidate]));
      if (tx.ins.some((input) => Buffer.from(input.hash).reverse().toString('hex') === txid)) return tx;
    }
    if (Date.now() > deadline) throw new Error(`nothing spends ${txid} in the mempool`);
    await new Promise((resolve) => setTimeout(resolve, 200)); // polling the node's mempool, with the deadline above
  }
}

/** The txid of Ferry's lockup of a reverse swap, once Ferry has recorded it. */
async function lockupOf(apiUrl: string, id: string): Promise<string> {
  const deadline = Date.now() + 90_000; // a restarted Ferry first resyncs its chains and invoices
  for (;;) {
    const answer = await new SwapApi(apiUrl).call('GET', `/v2/swap/reverse/${id}/transaction`);
    if (answer.status === 200) return answer.body.id as string;
    if (Date.now() > deadline) throw new Error(`no lockup for ${id}: ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200)); // polling Ferry's API, with the deadline above
  }
}

/** Mines the claim and checks what the receiver's wallet got from it: the committed amount of L-BTC, nothing else. */
async function assertPaid(claimTx: Transaction, expected: number): Promise<void> {
  const { elements, wallet } = rpc();
  await elements.call('generatetoaddress', [1, await wallet.getNewAddress()]);
  const coins = (await wallet.call<Array<{ txid: string; amount: number; asset: string }>>('listunspent', [0]))
    .filter((coin) => coin.txid === claimTx.getId())
    .map((coin) => ({ amount: Math.round(coin.amount * 1e8), asset: coin.asset }));
  assert.deepEqual(coins, [{ amount: expected, asset: policyAsset('regtest') }], 'the address got the committed amount');
}

const payer = () => {
  const alice = world.info.lightning.alice;
  return new LndRestClient({ url: alice.restUrl, macaroon: alice.macaroon });
};

test('registered, then Ferry restarts before it locks: the restarted Ferry locks and claims to the address', async () => {
  await world.ready;
  const first = await world.startFerryProcess();
  const { created, preimage, expected } = await registeredSwap(new SwapApi(first.apiUrl), 41_000);
  await stopFerry(first);
  // The receiver is offline from here on; Ferry comes back without anything but its database to remember it by.

  const paid = payer().payInvoice({ paymentRequest: created.invoice, timeoutSeconds: 120, feeLimitMsat: 10_000n });
  const second = await world.startFerryProcess();
  const claimTx = await spenderOf(await lockupOf(second.apiUrl, created.id), 60_000);
  await assertPaid(claimTx, expected);
  const payment = await paid;
  assert.equal(payment.status, 'SUCCEEDED', 'the invoice was settled');
  assert.equal(payment.preimage, hex.encode(preimage), 'with the preimage the claim revealed');
  await stopFerry(second);
});

test('registered, Ferry killed right after its lockup went out: the restarted Ferry claims to the address', async () => {
  await world.ready;
  const crashing = await world.startFerryProcess('reverse.lockup-broadcast');
  const { created, preimage, expected } = await registeredSwap(new SwapApi(crashing.apiUrl), 43_000);
  const paid = payer().payInvoice({ paymentRequest: created.invoice, timeoutSeconds: 120, feeLimitMsat: 10_000n });
  await untilCrash(crashing, 'reverse.lockup-broadcast');
  // The lockup went out; the kill came before Ferry recorded it, so its claimer never saw it locked.

  const ferry = await world.startFerryProcess();
  const claimTx = await spenderOf(await lockupOf(ferry.apiUrl, created.id), 60_000);
  await assertPaid(claimTx, expected);
  const payment = await paid;
  assert.equal(payment.status, 'SUCCEEDED', 'the invoice was settled');
  assert.equal(payment.preimage, hex.encode(preimage), 'with the preimage the claim revealed');
  await stopFerry(ferry);
});

test('registered, Ferry killed with its lockup recorded and the claim built: the restarted Ferry claims at its start', async () => {
  await world.ready;
  const crashing = await world.startFerryProcess('covenant-claim.built');
  const { created, preimage, expected } = await registeredSwap(new SwapApi(crashing.apiUrl), 47_000);
  const paid = payer().payInvoice({ paymentRequest: created.invoice, timeoutSeconds: 120, feeLimitMsat: 10_000n });
  await untilCrash(crashing, 'covenant-claim.built');
  // No block is mined: the recorded lockup sees no further transition, only the engine's start can claim it.
  const ferry = await world.startFerryProcess();
  const claimTx = await spenderOf(await lockupOf(ferry.apiUrl, created.id), 60_000);
  await assertPaid(claimTx, expected);
  const payment = await paid;
  assert.equal(payment.status, 'SUCCEEDED', 'the invoice was settled');
  assert.equal(payment.preimage, hex.encode(preimage), 'with the preimage the claim revealed');
  await stopFerry(ferry);
});
