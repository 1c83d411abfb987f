// Asset rescue on the devnet's Liquid chain, the wallet's side through the public API only: the user issues an
// asset (issueasset) and sends some of it to a submarine swap's lockup address by mistake; Ferry refuses the lockup
// (transaction.lockupFailed); POST /v2/asset/L-BTC/rescue/setup answers the rescue transaction and Ferry's nonce,
// the wallet checks the transaction (its lockup spent, the whole asset to its own address, the message the sighash of
// the lockup input) and signs, POST .../broadcast aggregates and broadcasts. The asset lands at the wallet's address
// and Ferry's wallet pays exactly the fee in L-BTC; the same for a chain swap from L-BTC. Bad input gets a 4xx
// {"error"}.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from 'liquidjs-lib';
import { chainRpc, walletNames } from '@ferry/devnet/cli/chains.js';
import type { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { deserializeLiquidTree, liquidSwapMusig } from '@ferry/sdk/chains/liquid/htlc.js';
import { decodeAddress } from '@ferry/sdk/chains/liquid/network.js';
import { clientSpendSighash } from '@ferry/sdk/chains/liquid/spends.js';
import { unblindOutput } from '@ferry/sdk/chains/liquid/unblind.js';
import { initLiquid, zkpLib } from '@ferry/sdk/chains/liquid/zkp.js';
import { signWithMusig } from '@ferry/sdk/keys/index.js';
import { newKeyPair, newPreimage } from '../helpers/swap-api.ts';
import { startService, type Service } from '../client/support.ts';

let service: Service;
let operator: CoreRpcClient;
let asset: string;

before(async () => {
  await initLiquid();
  service = await startService();
  operator = chainRpc(service.info, 'L-BTC', walletNames(service.info, 'L-BTC').operator);
  ({ asset } = await service.liquid.user.call<{ asset: string }>('issueasset', [1000, 0]));
  await service.liquid.mine();
});
after(async () => {
  await service?.close();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(service.apiUrl + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function waitForStatus(id: string, status: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = (await call('GET', `/v2/swap/${id}`)).body.status as string;
    if (last === status) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`swap ${id} is ${last}, not ${status}`);
}

/** A submarine swap from L-BTC; the wallet keeps its refund key. */
async function submarineSwap(sat: number) {
  const refund = newKeyPair();
  const { invoice } = await service.invoice('alice', sat);
  const created = await call('POST', '/v2/swap/submarine', { from: 'L-BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(refund.publicKey) });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { swap: created.body as { id: string; address: string; claimPublicKey: string; swapTree: unknown }, refund };
}

/** Sends `units` of the issued asset to `address` from the user wallet, mined; the lockup's outpoint. */
async function sendAsset(address: string, units: number): Promise<{ txid: string; vout: number }> {
  const txid = await service.liquid.user.call<string>('sendtoaddress', [address, units, '', '', false, true, null, 'unset', false, asset]);
  await service.liquid.mine();
  const tx = Transaction.fromHex(await service.liquid.node.call<string>('getrawtransaction', [txid]));
  const script = hex.encode(decodeAddress(address, 'regtest').script);
  return { txid, vout: tx.outs.findIndex((out) => hex.encode(out.script) === script) };
}

/** The operator wallet's L-BTC, confirmed and pending, in sat. */
async function operatorLbtc(): Promise<number> {
  const { mine } = await operator.call<{ mine: Record<string, Record<string, number>> }>('getbalances');
  return Math.round(((mine.trusted.bitcoin ?? 0) + (mine.untrusted_pending.bitcoin ?? 0)) * 1e8);
}

test('an asset sent to a submarine swap by mistake is rescued to the wallet; Ferry pays only the fee', async () => {
  const { swap, refund } = await submarineSwap(25_000);
  const lockup = await sendAsset(swap.address, 5);
  await waitForStatus(swap.id, 'transaction.lockupFailed');

  const destination = await service.liquid.user.getNewAddress();
  const operatorBefore = await operatorLbtc();
  const setup = await call('POST', '/v2/asset/L-BTC/rescue/setup', { swapId: swap.id, transactionId: lockup.txid, vout: lockup.vout, destination });
  assert.equal(setup.status, 201, JSON.stringify(setup.body));
  const { musig, transaction } = setup.body as { musig: { serverPublicKey: string; pubNonce: string; message: string }; transaction: string };
  assert.equal(musig.serverPublicKey, swap.claimPublicKey);

  // The wallet's checks before it signs: its lockup is input 0, output 0 opens (with its blinding key) to the whole
  // asset amount, and the message is the lockup input's sighash over the outputs both inputs spend.
  const tx = Transaction.fromHex(transaction);
  const outpoint = (index: number) => ({ txid: hex.encode(Uint8Array.from(tx.ins[index].hash).reverse()), vout: tx.ins[index].index });
  assert.deepEqual(outpoint(0), lockup);
  assert.equal(tx.ins.length, 2);
  assert.equal(hex.encode(tx.outs[0].script), hex.encode(decodeAddress(destination, 'regtest').script));
  const blindingKey = hex.decode(await service.liquid.user.call<string>('dumpblindingkey', [destination]));
  const opened = unblindOutput(zkpLib(), tx.outs[0], blindingKey);
  assert.deepEqual([opened.asset, opened.value], [asset, 500_000_000n]);
  const prevouts = await Promise.all([0, 1].map(async (index) => {
    const { txid, vout } = outpoint(index);
    return Transaction.fromHex(await service.liquid.node.call<string>('getrawtransaction', [txid])).outs[vout];
  }));
  assert.equal(musig.message, hex.encode(clientSpendSighash(transaction, 0, prevouts, 'regtest')));
  const feeOutput = tx.outs.find((out) => out.script.length === 0)!;
  const fee = Number(Buffer.from(feeOutput.value).subarray(1).readBigUInt64BE());

  const tree = deserializeLiquidTree(swap.swapTree as never);
  const serverKey = hex.decode(musig.serverPublicKey);
  const clientMusig = () => liquidSwapMusig(refund.privateKey, [serverKey, refund.publicKey], tree);
  // A partial signature that is not the refund key's is refused, and the rescue stays pending.
  const strangerKey = newKeyPair();
  const stranger = signWithMusig(liquidSwapMusig(strangerKey.privateKey, [serverKey, strangerKey.publicKey], tree), serverKey, hex.decode(musig.message), hex.decode(musig.pubNonce));
  const forged = await call('POST', '/v2/asset/L-BTC/rescue/broadcast', { swapId: swap.id, pubNonce: hex.encode(stranger.pubNonce), partialSignature: hex.encode(stranger.partialSignature) });
  assert.deepEqual([forged.status, forged.body], [400, { error: 'invalid partial signature' }]);

  const signed = signWithMusig(clientMusig(), serverKey, hex.decode(musig.message), hex.decode(musig.pubNonce));
  const broadcast = await call('POST', '/v2/asset/L-BTC/rescue/broadcast', { swapId: swap.id, pubNonce: hex.encode(signed.pubNonce), partialSignature: hex.encode(signed.partialSignature) });
  assert.equal(broadcast.status, 200, JSON.stringify(broadcast.body));
  const { transactionId } = broadcast.body as { transactionId: string };
  await service.liquid.mine();

  const coins = await service.liquid.user.call<Array<{ txid: string; amount: number; asset: string }>>('listunspent', [1, 9_999_999, [destination]]);
  assert.deepEqual(coins.map((coin) => [coin.txid, coin.asset, Math.round(coin.amount * 1e8)]), [[transactionId, asset, 500_000_000]], 'the whole asset is at the wallet address');
  assert.equal(await service.liquid.node.call('gettxout', [lockup.txid, lockup.vout]), null, 'the lockup is spent');
  assert.ok(fee > 0 && fee < 1_000, `fee ${fee} sat`);
  assert.equal(operatorBefore - (await operatorLbtc()), fee, "Ferry's L-BTC paid exactly the fee");

  const again = await call('POST', '/v2/asset/L-BTC/rescue/broadcast', { swapId: swap.id, pubNonce: hex.encode(signed.pubNonce), partialSignature: hex.encode(signed.partialSignature) });
  assert.deepEqual([again.status, again.body], [400, { error: 'no rescue is pending' }]);
});

test('an asset sent to the lockup of a chain swap from L-BTC is rescued with the refund key', async () => {
  const refund = newKeyPair();
  const created = await call('POST', '/v2/swap/chain', {
    from: 'L-BTC',
    to: 'BTC',
    preimageHash: hex.encode(newPreimage().preimageHash),
    claimPublicKey: hex.encode(newKeyPair().publicKey),
    refundPublicKey: hex.encode(refund.publicKey),
    userLockAmount: 50_000,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { id, lockupDetails } = created.body as { id: string; lockupDetails: { lockupAddress: string; serverPublicKey: string; swapTree: unknown } };
  const lockup = await sendAsset(lockupDetails.lockupAddress, 2);
  await waitForStatus(id, 'transaction.lockupFailed');

  const destination = await service.liquid.user.getNewAddress();
  const operatorBefore = await operatorLbtc();
  const setup = await call('POST', '/v2/asset/L-BTC/rescue/setup', { swapId: id, transactionId: lockup.txid, vout: lockup.vout, destination });
  assert.equal(setup.status, 201, JSON.stringify(setup.body));
  const { musig, transaction } = setup.body as { musig: { serverPublicKey: string; pubNonce: string; message: string }; transaction: string };
  assert.equal(musig.serverPublicKey, lockupDetails.serverPublicKey);
  const serverKey = hex.decode(musig.serverPublicKey);
  const tree = deserializeLiquidTree(lockupDetails.swapTree as never);
  const signed = signWithMusig(liquidSwapMusig(refund.privateKey, [serverKey, refund.publicKey], tree), serverKey, hex.decode(musig.message), hex.decode(musig.pubNonce));
  const broadcast = await call('POST', '/v2/asset/L-BTC/rescue/broadcast', { swapId: id, pubNonce: hex.encode(signed.pubNonce), partialSignature: hex.encode(signed.partialSignature) });
  assert.equal(broadcast.status, 200, JSON.stringify(broadcast.body));
  await service.liquid.mine();

  const coins = await service.liquid.user.call<Array<{ txid: string; amount: number; asset: string }>>('listunspent', [1, 9_999_999, [destination]]);
  assert.deepEqual(coins.map((coin) => [coin.txid, coin.asset, Math.round(coin.amount * 1e8)]), [[broadcast.body.transactionId, asset, 200_000_000]]);
  const feeOutput = Transaction.fromHex(transaction).outs.find((out) => out.script.length === 0)!;
  assert.equal(operatorBefore - (await operatorLbtc()), Number(Buffer.from(feeOutput.value).subarray(1).readBigUInt64BE()), "Ferry's L-BTC paid exactly the fee");
});

test('bad rescue requests get a 4xx {"error"}', async () => {
  const { swap } = await submarineSwap(21_000);
  const destination = await service.liquid.user.getNewAddress();
  const txid = 'ab'.repeat(32);
  const refused = async (path: string, body: unknown) => {
    const answer = await call('POST', path, body);
    return [answer.status, answer.body.error];
  };
  const setup = (body: unknown, currency = 'L-BTC') => refused(`/v2/asset/${currency}/rescue/setup`, body);
  assert.deepEqual(await setup({ swapId: swap.id, transactionId: txid, vout: 0, destination }, 'BTC'), [400, 'only L-BTC is supported']);
  assert.deepEqual(await setup({ transactionId: txid, vout: 0, destination }), [400, 'undefined parameter: swapId']);
  assert.deepEqual(await setup({ swapId: swap.id, transactionId: 'zz', vout: 0, destination }), [400, 'invalid parameter: transactionId']);
  assert.deepEqual(await setup({ swapId: swap.id, transactionId: txid, vout: -1, destination }), [400, 'invalid parameter: vout']);
  assert.deepEqual(await setup({ swapId: 'AAAAAAAAAAAA', transactionId: txid, vout: 0, destination }), [404, 'could not find swap with id: AAAAAAAAAAAA']);
  assert.deepEqual(await setup({ swapId: swap.id, transactionId: txid, vout: 0, destination }), [400, 'swap not eligible for asset rescue'], 'a swap waiting for its lockup');

  // A failed swap, then outputs that are not its lockup and destinations that are no Liquid address.
  const lockup = await sendAsset(swap.address, 1);
  await waitForStatus(swap.id, 'transaction.lockupFailed');
  assert.deepEqual(await setup({ swapId: swap.id, transactionId: lockup.txid, vout: lockup.vout === 0 ? 1 : 0, destination }), [400, "the output is not this swap's lockup"]);
  assert.deepEqual(await setup({ swapId: swap.id, transactionId: txid, vout: 0, destination }), [400, `could not find transaction ${txid}`]);
  assert.deepEqual(await setup({ swapId: swap.id, transactionId: lockup.txid, vout: lockup.vout, destination: await service.user.getNewAddress() }), [400, 'invalid destination address']);
  const broadcast = (body: unknown) => refused('/v2/asset/L-BTC/rescue/broadcast', body);

  // L-BTC of the wrong amount also fails the swap, but it pays its own fee: refunded, never rescued.
  const { swap: short } = await submarineSwap(22_000);
  const lbtcTxid = await service.liquid.user.call<string>('sendtoaddress', [short.address, 0.0001]);
  await service.liquid.mine();
  await waitForStatus(short.id, 'transaction.lockupFailed');
  const lbtcVout = Transaction.fromHex(await service.liquid.node.call<string>('getrawtransaction', [lbtcTxid])).outs.findIndex(
    (out) => hex.encode(out.script) === hex.encode(decodeAddress(short.address, 'regtest').script),
  );
  assert.deepEqual(await setup({ swapId: short.id, transactionId: lbtcTxid, vout: lbtcVout, destination }), [400, 'the lockup holds L-BTC: refund it instead']);

  assert.deepEqual(await broadcast({ swapId: swap.id, pubNonce: '02'.repeat(66), partialSignature: '01'.repeat(32) }), [400, 'no rescue is pending']);
  assert.deepEqual(await broadcast({ swapId: swap.id, pubNonce: 'zz', partialSignature: '01'.repeat(32) }), [400, 'could not parse hex string: pubNonce']);
});
