// How both devnet nodes write amounts on the wire: Bitcoin Core 26+ and Elements 23 write every amount with
// ValueFromAmount — exactly 8 decimals, never an exponent — and real clients parse exactly that text (lightningd's
// bcli exits at start on `0.00001`). Asserted on the answer's bytes for every RPC answer carrying an amount.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBitcoinDevnet, type BitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';
import { startElementsDevnet, type ElementsDevnet } from '@ferry/devnet/elements/index.js';
import { BtcAmount, writeRpcJson } from '@ferry/devnet/common/rpc-json.js';
import { Rpc } from '../helpers/devnet-rpc.ts';

let dataDir: string;
let bitcoin: BitcoinDevnet;
let elements: ElementsDevnet;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-rpc-amounts-'));
  bitcoin = await startBitcoinDevnet({ dataDir: join(dataDir, 'btc'), port: 0, fullRbf: true });
  elements = await startElementsDevnet({ dataDir: join(dataDir, 'elements'), port: 0 });
});

after(async () => {
  await bitcoin?.close();
  await elements?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every number written in `field` of the answer's text. */
function numbersOf(text: string, field: string): string[] {
  return [...text.matchAll(new RegExp(`"${field}":(-?[0-9][0-9.eE+-]*)`, 'g'))].map((m) => m[1]);
}

/** Asserts each listed field of the answer text appears and every occurrence is written as Core writes amounts. */
function assertAmounts(text: string, fields: string[], what: string): void {
  for (const field of fields) {
    const numbers = numbersOf(text, field);
    assert.ok(numbers.length > 0, `${what}: no "${field}" number in ${text.slice(0, 400)}`);
    for (const number of numbers) assert.match(number, /^-?\d+\.\d{8}$/, `${what}: "${field}":${number}`);
  }
}

describe('RPC amounts as Core writes them', () => {
  test('the writer: 8 decimals, no exponent, negative amounts, in nested answers', () => {
    assert.equal(writeRpcJson({ a: new BtcAmount(1000n), b: [new BtcAmount(1n)], c: new BtcAmount(-150n) }), '{"a":0.00001000,"b":[0.00000001],"c":-0.00000150}');
    assert.equal(writeRpcJson({ big: new BtcAmount(2_100_000_000_000_000n), skip: undefined, s: 'x"y' }), '{"big":21000000.00000000,"s":"x\\"y"}');
    assert.equal(JSON.stringify({ a: new BtcAmount(1000n) }), '{"a":0.00001}', 'in process it is a number');
  });

  test('Bitcoin node: fee rates, mempool, transactions, blocks, coins and wallet answers', async () => {
    const rpc = new Rpc(bitcoin);
    const user = rpc.for(bitcoin.wallets.user);
    const mempoolInfo = await rpc.text('getmempoolinfo');
    assert.match(mempoolInfo, /"mempoolminfee":0\.00001000\b/);
    assertAmounts(mempoolInfo, ['total_fee', 'mempoolminfee', 'minrelaytxfee', 'incrementalrelayfee'], 'getmempoolinfo');
    assertAmounts(await rpc.text('getnetworkinfo'), ['relayfee', 'incrementalfee'], 'getnetworkinfo');
    assertAmounts(await rpc.text('estimatesmartfee', 6), ['feerate'], 'estimatesmartfee');

    const address = await user.call<string>('getnewaddress');
    const txid = await user.call<string>('sendtoaddress', address, 0.001);
    const raw = await rpc.call<string>('getrawtransaction', txid);
    assertAmounts(await rpc.text('getrawtransaction', txid, 1), ['value'], 'getrawtransaction');
    assertAmounts(await rpc.text('decoderawtransaction', raw), ['value'], 'decoderawtransaction');
    assertAmounts(await rpc.text('getrawmempool', true), ['base', 'modified', 'ancestor', 'descendant'], 'getrawmempool');
    assertAmounts(await rpc.text('getmempoolentry', txid), ['base'], 'getmempoolentry');
    const txout = await rpc.text('gettxout', txid, 0, true);
    assertAmounts(txout, ['value'], 'gettxout');

    const [hash] = await rpc.call<string[]>('generatetoaddress', 1, address);
    assertAmounts(await rpc.text('getblock', hash, 2), ['value', 'fee'], 'getblock 2');
    assertAmounts(await rpc.text('getblock', hash, 3), ['value', 'fee'], 'getblock 3');
    const coinTxout = await rpc.text('gettxout', txid, 0);
    assertAmounts(coinTxout, ['value'], 'gettxout (confirmed)');

    assertAmounts(await user.text('getbalance'), ['result'], 'getbalance');
    assertAmounts(await user.text('getbalances'), ['trusted', 'untrusted_pending', 'immature'], 'getbalances');
    assertAmounts(await user.text('getwalletinfo'), ['balance', 'unconfirmed_balance', 'immature_balance', 'paytxfee'], 'getwalletinfo');
    assertAmounts(await user.text('listunspent'), ['amount'], 'listunspent');
    const replaceable = await user.call<string>('sendtoaddress', address, 0.002);
    assertAmounts(await user.text('bumpfee', replaceable, { fee_rate: 10 }), ['origfee', 'fee'], 'bumpfee');
  });

  test('Elements node: the same, amounts per asset included', async () => {
    const rpc = new Rpc(elements);
    const user = rpc.for(elements.wallets.user);
    const mempoolInfo = await rpc.text('getmempoolinfo');
    assert.match(mempoolInfo, /"minrelaytxfee":0\.00000100\b/, 'the relay floor, 0.1 sat/vB');
    assertAmounts(mempoolInfo, ['total_fee', 'mempoolminfee', 'minrelaytxfee'], 'getmempoolinfo');
    assertAmounts(await rpc.text('estimatesmartfee', 6), ['feerate'], 'estimatesmartfee');

    const address = await user.call<string>('getnewaddress');
    const txid = await user.call<string>('sendtoaddress', address, 0.001);
    const raw = await rpc.call<string>('getrawtransaction', txid);
    assertAmounts(await rpc.text('getrawtransaction', txid, 1), ['value'], 'getrawtransaction (the fee output)');
    assertAmounts(await rpc.text('decoderawtransaction', raw), ['value'], 'decoderawtransaction');
    assertAmounts(await rpc.text('getmempoolentry', txid), ['base'], 'getmempoolentry');
    assertAmounts(await user.text('gettransaction', txid), ['bitcoin', 'amount'], 'gettransaction');
    await rpc.call('generatetoaddress', 1, address);
    assertAmounts(await user.text('getbalance'), ['bitcoin'], 'getbalance');
    assertAmounts(await user.text('getbalance', '*', 0, false, false, 'bitcoin'), ['result'], 'getbalance (one asset)');
    assertAmounts(await user.text('getbalances'), ['bitcoin'], 'getbalances');
    assertAmounts(await user.text('getwalletinfo'), ['bitcoin', 'paytxfee'], 'getwalletinfo');
    assertAmounts(await user.text('listunspent'), ['amount'], 'listunspent');
  });
});
