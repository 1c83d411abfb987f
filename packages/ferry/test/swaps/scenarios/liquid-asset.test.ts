// A Liquid submarine swap paid in the wrong asset, end to end against a real Ferry: the devnet's user wallet issues
// its own asset and pays the swap's blinded lockup address with it. Ferry unblinds the lockup, sees it is not
// L-BTC, fails the swap with that reason and never pays the invoice; the foreign coins stay where they were sent.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Rpc } from '../../helpers/devnet-rpc.ts';
import { startWorld, type World } from './support/world.ts';

let world: World;
let elements: Rpc;
let user: Rpc;

before(async () => {
  world = await startWorld();
  elements = new Rpc(world.info.elements);
  user = elements.for(world.info.elements.wallets.user);
});

after(async () => {
  await world?.close();
});

async function api(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(world.ferry.apiUrl + path, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

async function statusOf(id: string, wanted: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await api('GET', `/v2/swap/${id}`);
    if (json.status === wanted) return json;
    if (Date.now() > deadline) throw new Error(`swap ${id} is ${json.status}, not ${wanted}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('a lockup in another asset fails the swap with the asset named, and the invoice stays unpaid', async () => {
  const { invoice, paymentHash } = await world.lightning.addInvoice('alice', 20_000);
  const refundPublicKey = Buffer.from(secp256k1.getPublicKey(randomBytes(32), true)).toString('hex');
  const created = await api('POST', '/v2/swap/submarine', { from: 'L-BTC', to: 'BTC', invoice, refundPublicKey });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const swap = created.json;

  const issued = await user.call<{ asset: string; txid: string }>('issueasset', 1, 0);
  const sent = await user.call<string>('sendtoaddress', swap.address, swap.expectedAmount / 1e8, '', '', false, null, null, null, null, issued.asset);
  await elements.call('generatetoaddress', 1, await user.call<string>('getnewaddress'));

  const failed = await statusOf(swap.id, 'transaction.lockupFailed');
  assert.match(failed.failureReason, new RegExp(`asset ${issued.asset}, not L-BTC`));
  // The coins are the foreign asset, blinded to the swap's key, and nobody touched them.
  const lockupTx = await elements.call<{ vout: { n: number; scriptPubKey: { address?: string } }[] }>('getrawtransaction', sent, true);
  const unconfidential = (await user.call<{ unconfidential: string }>('getaddressinfo', swap.address)).unconfidential;
  const vout = lockupTx.vout.find((out) => out.scriptPubKey.address === unconfidential)!.n;
  assert.notEqual(await elements.call('gettxout', sent, vout), null, 'the lockup is unspent');
  // Ferry never paid: alice's invoice is still open and the swap has no preimage.
  assert.equal((await world.lightning.invoice('alice', paymentHash)).state, 'OPEN');
  const preimage = await api('GET', `/v2/swap/submarine/${swap.id}/preimage`);
  assert.equal(preimage.status, 400);

  // Co-signing a refund of this failed swap takes a Liquid transaction that spends its lockup; anything else is a 400.
  const pubNonce = Buffer.concat([secp256k1.getPublicKey(randomBytes(32), true), secp256k1.getPublicKey(randomBytes(32), true)]).toString('hex');
  const refund = (transaction: string, index = 0) => api('POST', `/v2/swap/submarine/${swap.id}/refund`, { pubNonce, transaction, index });
  const bitcoinTx = await world.chain.rpc.getRawTransactionHex((await world.chain.rpc.getBlock(await world.chain.rpc.getBestBlockHash())).tx[0]);
  assert.deepEqual(await refund(bitcoinTx), { status: 400, json: { error: 'invalid parameter: transaction' } });
  const otherLiquidTx = await elements.call<string>('getrawtransaction', issued.txid);
  const other = await refund(otherLiquidTx);
  assert.equal(other.status, 400);
  assert.match(other.json.error, /lockup/);
  assert.deepEqual(await refund(otherLiquidTx, 7), { status: 400, json: { error: 'invalid parameter: index' } });
  assert.equal((await api('GET', `/v2/swap/${swap.id}`)).json.status, 'transaction.lockupFailed', 'the swap did not change');
});
