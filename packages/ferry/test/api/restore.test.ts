// POST /v2/swap/restore, /rescue and /restore/index with the real engine on the devnet: swaps created with keys
// derived from a wallet's xpub are found again by the xpub (within its gap limit), by one key or by a list, with
// the trees, keys, addresses and timeouts their creation answered; hostile bodies get a 400, never a 500.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HDKey } from '@scure/bip32';
import { generateMnemonic, mnemonicToSeedSync } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { rest } from '../lightning/helpers.ts';
import { newKeyPair } from '../engine/client.ts';
import { startWorld, type World } from '../engine/world.ts';
import { call, startApi, type TestApi } from './swap-api-harness.ts';

let world: World;
let api: TestApi;
const root = HDKey.fromMasterSeed(mnemonicToSeedSync(generateMnemonic(wordlist)));
const xpub = root.publicExtendedKey;
const childKey = (index: number) => root.derive(`m/44/0/0/0/${index}`);
const publicKeyAt = (index: number) => hex.encode(childKey(index).publicKey!);
const created: Record<string, any> = {};

before(async () => {
  world = await startWorld();
  api = await startApi(world.engine, { maxBodyBytes: 1 << 20 });
  const reverse = async (index: number) => {
    const preimageHash = hex.encode(sha256(sha256(childKey(index).privateKey!)));
    const answer = await call(api, 'POST', '/v2/swap/reverse', { from: 'BTC', to: 'BTC', invoiceAmount: 50_000, preimageHash, claimPublicKey: publicKeyAt(index) });
    assert.equal(answer.status, 201, JSON.stringify(answer.json));
    return { ...answer.json, preimageHash };
  };
  const submarine = async (refundPublicKey: string) => {
    const { body } = await rest<{ payment_request: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', { value: 40_000, memo: 'restore' });
    const answer = await call(api, 'POST', '/v2/swap/submarine', { from: 'BTC', to: 'BTC', invoice: body.payment_request, refundPublicKey });
    assert.equal(answer.status, 201, JSON.stringify(answer.json));
    return { ...answer.json, invoice: body.payment_request };
  };
  created.reverse0 = await reverse(0);
  created.submarine3 = await submarine(publicKeyAt(3));
  created.reverse60 = await reverse(60);
  created.stranger = await submarine(hex.encode(newKeyPair().publicKey));
  // Too little locked: the submarine swap fails and its lockup is the wallet's to refund.
  await world.user.sendToAddress(created.submarine3.address, satToBtc(created.submarine3.expectedAmount - 1_000));
  await world.mine();
  await world.waitForStatus(created.submarine3.id, 'transaction.lockupFailed');
});
after(async () => {
  await api?.close();
  await world?.close();
});

describe('restore', () => {
  test('by xpub: every swap of the wallet within the gap limit, with what it takes to claim or refund it', async () => {
    const answer = await call(api, 'POST', '/v2/swap/restore', { xpub });
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.deepEqual(answer.json.map((swap: any) => swap.id), [created.reverse0.id, created.submarine3.id, created.reverse60.id]);
    const [reverse, submarine] = answer.json;
    assert.equal(reverse.type, 'reverse');
    assert.deepEqual([reverse.from, reverse.to, reverse.status, reverse.invoice, reverse.preimageHash], ['BTC', 'BTC', 'swap.created', created.reverse0.invoice, created.reverse0.preimageHash]);
    assert.deepEqual(reverse.claimDetails, {
      type: 'utxo',
      tree: created.reverse0.swapTree,
      amount: created.reverse0.onchainAmount,
      keyIndex: 0,
      lockupAddress: created.reverse0.lockupAddress,
      serverPublicKey: created.reverse0.refundPublicKey,
      timeoutBlockHeight: created.reverse0.timeoutBlockHeight,
      preimageHash: created.reverse0.preimageHash,
    });
    assert.equal(reverse.refundDetails, undefined);
    assert.equal(submarine.status, 'transaction.lockupFailed');
    assert.equal(submarine.invoice, created.submarine3.invoice);
    const { transaction, ...refund } = submarine.refundDetails;
    assert.deepEqual(refund, {
      type: 'utxo',
      tree: created.submarine3.swapTree,
      amount: created.submarine3.expectedAmount,
      keyIndex: 3,
      lockupAddress: created.submarine3.address,
      serverPublicKey: created.submarine3.claimPublicKey,
      timeoutBlockHeight: created.submarine3.timeoutBlockHeight,
    });
    assert.match(transaction.id, /^[0-9a-f]{64}$/);
    assert.equal(typeof transaction.vout, 'number');
    assert.equal(typeof submarine.createdAt, 'number');
    assert.ok(Math.abs(submarine.createdAt - Date.now() / 1000) < 600);
  });

  test('the gap limit bounds the scan; pagination reads exactly its window', async () => {
    const narrow = await call(api, 'POST', '/v2/swap/restore', { xpub, gapLimit: 10 });
    assert.deepEqual(narrow.json.map((swap: any) => swap.id), [created.reverse0.id, created.submarine3.id]);
    const page = await call(api, 'POST', '/v2/swap/restore', { xpub, pagination: { startIndex: 50, limit: 20 } });
    assert.deepEqual(page.json.map((swap: any) => [swap.id, swap.claimDetails.keyIndex]), [[created.reverse60.id, 60]]);
    const elsewhere = await call(api, 'POST', '/v2/swap/restore', { xpub, derivationPath: 'm/44/0/0/1' });
    assert.deepEqual(elsewhere.json, []);
  });

  test('by one public key or a list: the index is the position in the list', async () => {
    const one = await call(api, 'POST', '/v2/swap/restore', { publicKey: publicKeyAt(3).toUpperCase() });
    assert.deepEqual(one.json.map((swap: any) => [swap.id, swap.refundDetails.keyIndex]), [[created.submarine3.id, 0]]);
    const list = await call(api, 'POST', '/v2/swap/restore', { publicKeys: [publicKeyAt(7), publicKeyAt(60), publicKeyAt(0)] });
    assert.deepEqual(list.json.map((swap: any) => [swap.id, swap.claimDetails.keyIndex]), [[created.reverse0.id, 2], [created.reverse60.id, 1]]);
  });

  test('rescue answers only the refundable swaps; restore/index the highest index used', async () => {
    const rescue = await call(api, 'POST', '/v2/swap/rescue', { xpub });
    assert.equal(rescue.status, 200);
    assert.equal(rescue.json.length, 1);
    const [swap] = rescue.json;
    assert.deepEqual(
      [swap.id, swap.type, swap.symbol, swap.keyIndex, swap.lockupAddress, swap.serverPublicKey, swap.invoice],
      [created.submarine3.id, 'submarine', 'BTC', 3, created.submarine3.address, created.submarine3.claimPublicKey, created.submarine3.invoice],
    );
    assert.deepEqual((await call(api, 'POST', '/v2/swap/restore/index', { xpub })).json, { index: 60 });
    assert.deepEqual((await call(api, 'POST', '/v2/swap/restore/index', { xpub, gapLimit: 5 })).json, { index: 3 });
    const stranger = HDKey.fromMasterSeed(mnemonicToSeedSync(generateMnemonic(wordlist))).publicExtendedKey;
    assert.deepEqual((await call(api, 'POST', '/v2/swap/restore/index', { xpub: stranger })).json, { index: -1 });
  });

  test('hostile bodies get a 400 with an error text', async () => {
    const key = publicKeyAt(1);
    const bodies: [string, unknown, RegExp][] = [
      ['/v2/swap/restore', { xpub: 'xpub-not-really' }, /invalid parameter: xpub/],
      ['/v2/swap/restore', { xpub: root.privateExtendedKey }, /extended private key/],
      ['/v2/swap/restore', { xpub: 'x'.repeat(5000) }, /invalid parameter: xpub/],
      ['/v2/swap/restore', { xpub, derivationPath: "m/44'/0'/0'/0" }, /derivationPath/],
      ['/v2/swap/restore', { xpub, derivationPath: 'm/99999999999' }, /derivationPath/],
      ['/v2/swap/restore', { xpub, gapLimit: 0 }, /invalid parameter: gapLimit/],
      ['/v2/swap/restore', { xpub, gapLimit: 151 }, /invalid parameter: gapLimit/],
      ['/v2/swap/restore', { xpub, gapLimit: '5' }, /invalid parameter: gapLimit/],
      ['/v2/swap/restore', { xpub, pagination: { startIndex: 0 } }, /pagination/],
      ['/v2/swap/restore', { xpub, pagination: { startIndex: 0, limit: 1001 } }, /pagination.limit/],
      ['/v2/swap/restore', { publicKeys: Array.from({ length: 1001 }, () => key) }, /invalid parameter: publicKeys/],
      ['/v2/swap/restore', { publicKeys: key }, /invalid parameter: publicKeys/],
      ['/v2/swap/restore', { publicKeys: [key, 42] }, /invalid parameter: publicKeys/],
      ['/v2/swap/restore', { publicKey: 'zz' }, /invalid parameter: publicKey/],
      ['/v2/swap/restore', { xpub, publicKey: key }, /exactly one of/],
      ['/v2/swap/restore', {}, /exactly one of/],
      ['/v2/swap/restore', [xpub], /JSON object/],
      ['/v2/swap/restore/index', 'null', /JSON object|request body/],
    ];
    for (const [path, body, error] of bodies) {
      const answer = await call(api, 'POST', path, body);
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(body).slice(0, 100)}: ${JSON.stringify(answer.json)}`);
      assert.match(answer.json.error, error, JSON.stringify(body).slice(0, 100));
      assert.ok(answer.json.error.length < 200);
    }
    // An address is restore's only: the key-only calls refuse it as the reference does.
    for (const path of ['/v2/swap/rescue', '/v2/swap/restore/index']) {
      const answer = await call(api, 'POST', path, { address: '0x' + '11'.repeat(20), timestamp: 1, signature: '0x' + '22'.repeat(65) });
      assert.equal(answer.status, 422, path);
      assert.deepEqual(answer.json, { error: 'address lookup is only supported for restore' });
    }
    assert.deepEqual(api.errors, []);
  });
});
