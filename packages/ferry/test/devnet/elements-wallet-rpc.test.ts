// The Elements devnet's named wallets over real JSON-RPC (port 0): funded operator and user wallets, a blinded
// sendtoaddress the user sees untrusted then trusted and unblinds with its key, -6 on overspending, a reorg moving
// a receipt back to pending, signrawtransactionwithwallet on the wallet's own input, wallets and balances kept across
// a restart, and startDevnet's `elements` entry.
// Every assert.ok carries a message: without one, node rebuilds it by parsing tsx's one-line output, which hangs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startElementsDevnet, type ElementsDevnet } from '@ferry/devnet/elements/index.js';
import { startDevnet, type DevnetInfo } from '@ferry/devnet/index.js';
import { REGTEST_POLICY_ASSET } from '@ferry/devnet/elements/verify/index.js';
import { AssetHash, ElementsValue, Transaction } from 'liquidjs-lib';
import { Rpc } from '../helpers/devnet-rpc.ts';
import { ephemeralDevnetPorts } from '../helpers/ports.ts';

interface Balances {
  mine: { trusted: Record<string, number>; untrusted_pending: Record<string, number>; immature: Record<string, number> };
}

interface Unspent {
  txid: string;
  vout: number;
  address: string;
  amount: number;
  asset: string;
  amountblinder: string;
  assetblinder: string;
  amountcommitment?: string;
  assetcommitment?: string;
  confirmations: number;
  safe: boolean;
}

interface WalletTx {
  amount: Record<string, number>;
  fee?: Record<string, number>;
  confirmations: number;
  trusted?: boolean;
  blockhash?: string;
  details: { category: string; amount: number }[];
}

interface RawTx {
  discountvsize: number;
  vsize: number;
  vout: { n: number; value?: number; valuecommitment?: string; assetcommitment?: string; scriptPubKey: { hex: string } }[];
}

let dataDir: string;
let devnet: ElementsDevnet;
let rpc: Rpc;
let operator: Rpc;
let user: Rpc;
let burn: string;
let receipt: { txid: string; address: string; blockhash?: string };

async function open(): Promise<void> {
  devnet = await startElementsDevnet({ dataDir, port: 0 });
  rpc = new Rpc(devnet);
  operator = rpc.for(devnet.wallets.operator);
  user = rpc.for(devnet.wallets.user);
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-elements-wallet-rpc-'));
  await open();
  // An address no wallet owns, for filler blocks.
  await rpc.call('createwallet', 'miner');
  burn = await rpc.for('miner').call<string>('getnewaddress');
});

after(async () => {
  await devnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Elements devnet wallets', () => {
  test('first start: operator and user are loaded and funded with mature L-BTC, shown as "bitcoin"', async () => {
    assert.deepEqual((await rpc.call<string[]>('listwallets')).sort(), ['miner', 'operator', 'user']);
    assert.equal(await rpc.call('getblockcount'), 102);
    const balances = await operator.call<Balances>('getbalances');
    assert.deepEqual(balances.mine.trusted, { bitcoin: 50 });
    assert.deepEqual(balances.mine.untrusted_pending, { bitcoin: 0 });
    assert.deepEqual((await user.call<Balances>('getbalances')).mine.trusted, { bitcoin: 50 });
    assert.deepEqual((await user.call<{ balance: unknown }>('getwalletinfo')).balance, { bitcoin: 50 });
    const [coin] = await operator.call<Unspent[]>('listunspent');
    assert.equal(coin.asset, REGTEST_POLICY_ASSET);
    assert.equal(coin.amountblinder, '0'.repeat(64), 'a coinbase is explicit');
    assert.equal(coin.amountcommitment, undefined);
    assert.match(coin.address, /^ert1q/, 'the script\'s unconfidential address, as elementsd lists it');
    assert.equal((await operator.call<Unspent[]>('listunspent', 1, 9999999, [], true, { asset: 'bitcoin' })).length, 1);
    assert.deepEqual(await operator.call('listunspent', 1, 9999999, [], true, { asset: '11'.repeat(32) }), []);
    assert.equal((await operator.error('listunspent', 1, 9999999, ['nonsense'])).message, 'Invalid Bitcoin address: nonsense');
    const error = await rpc.error('getbalances');
    assert.equal(error.code, -19, 'several wallets loaded and none named');
  });

  test('getnewaddress: a confidential el1 P2WPKH address the wallet owns, with its blinding key', async () => {
    const address = await user.call<string>('getnewaddress');
    assert.match(address, /^el1q/);
    const info = await user.call<{ ismine: boolean; confidential: string; unconfidential: string; witness_version: number }>('getaddressinfo', address);
    assert.equal(info.ismine, true);
    assert.equal(info.confidential, address);
    assert.match(info.unconfidential, /^ert1q/);
    assert.equal((await operator.call<{ ismine: boolean }>('getaddressinfo', address)).ismine, false);
    assert.match(await user.call<string>('getnewaddress', '', 'bech32m'), /^el1p/);
    assert.match(await user.call<string>('getnewaddress', '', 'blech32'), /^el1q/, 'blech32 is bech32, as Boltz asks for it');
    assert.equal((await user.error('getnewaddress', '', 'legacy')).code, -5);
  });

  test('sendtoaddress blinds the payment; the user sees it untrusted, then trusted after a block', async () => {
    const address = await user.call<string>('getnewaddress');
    const txid = await operator.call<string>('sendtoaddress', address, 1.25);
    receipt = { txid, address };
    assert.ok((await rpc.call<string[]>('getrawmempool')).includes(txid), 'accepted into the mempool');
    const tx = await rpc.call<RawTx>('getrawtransaction', txid, true);
    const script = (await user.call<{ scriptPubKey: string }>('getaddressinfo', address)).scriptPubKey;
    const out = tx.vout.find((o) => o.scriptPubKey.hex === script)!;
    assert.ok(out, 'an output pays the user');
    assert.equal(out.value, undefined, 'no explicit value');
    assert.match(out.valuecommitment ?? '', /^0[89]/);
    assert.match(out.assetcommitment ?? '', /^0[ab]/);
    const fee = tx.vout.find((o) => o.scriptPubKey.hex === '')!;
    assert.ok(fee && fee.value! > 0, 'an explicit fee output');
    const entry = await rpc.call<{ vsize: number; discountvsize: number; fees: { base: number } }>('getmempoolentry', txid);
    assert.equal(entry.fees.base, fee.value, 'getmempoolentry: the fee output is the fee');
    assert.equal(entry.vsize, tx.vsize, 'getmempoolentry: the full vsize, as decoderawtransaction');
    assert.equal(entry.discountvsize, tx.discountvsize, 'getmempoolentry: the discounted vsize');
    assert.ok(entry.discountvsize < entry.vsize, `discounted ${entry.discountvsize} < full ${entry.vsize}`);
    assert.deepEqual(await rpc.error('getmempoolentry', '00'.repeat(32)), { code: -5, message: 'Transaction not in mempool' });
    assert.equal(Math.round(fee.value! * 1e8), Math.ceil(tx.discountvsize / 10), 'the fallback fee: the relay floor, 0.1 sat/vB');

    const pending = await user.call<Balances>('getbalances');
    assert.deepEqual(pending.mine.untrusted_pending, { bitcoin: 1.25 });
    assert.deepEqual(pending.mine.trusted, { bitcoin: 50 });
    assert.deepEqual(await user.call('listunspent', 0, 0, [address]), [
      {
        ...(await user.call<Unspent[]>('listunspent', 0, 0, [address]))[0],
        txid, amount: 1.25, asset: REGTEST_POLICY_ASSET, confirmations: 0, safe: false,
      },
    ]);
    assert.deepEqual(await user.call('listunspent', 1, 9999999, [address]), [], 'minconf 1 hides it');
    // The operator's change is its own and so trusted at once.
    const operatorBalances = await operator.call<Balances>('getbalances');
    assert.ok(operatorBalances.mine.trusted.bitcoin > 48.7 && operatorBalances.mine.trusted.bitcoin < 48.75, 'change minus fee');

    const sent = await operator.call<WalletTx>('gettransaction', txid);
    assert.equal(sent.amount.bitcoin, -1.25, 'the operator sent 1.25, fee apart');
    assert.ok(sent.fee!.bitcoin < 0 && sent.fee!.bitcoin === -fee.value! && sent.trusted === true, 'its fee, negative; trusted');
    const received = await user.call<WalletTx>('gettransaction', txid);
    assert.deepEqual([received.amount, received.fee, received.confirmations, received.trusted], [{ bitcoin: 1.25 }, undefined, 0, false]);
    assert.deepEqual(received.details.map((d) => [d.category, d.amount]), [['receive', 1.25]]);
    assert.equal((await rpc.for('miner').error('gettransaction', txid)).code, -5, 'not a miner wallet transaction');

    [receipt.blockhash] = await rpc.call<string[]>('generatetoaddress', 1, burn);
    const mined = await user.call<WalletTx>('gettransaction', txid);
    assert.deepEqual([mined.confirmations, mined.blockhash], [1, receipt.blockhash]);
    const confirmed = await user.call<Balances>('getbalances');
    assert.deepEqual(confirmed.mine.trusted, { bitcoin: 51.25 });
    assert.deepEqual(confirmed.mine.untrusted_pending, { bitcoin: 0 });
    const [coin] = await user.call<Unspent[]>('listunspent', 1, 9999999, [address]);
    assert.equal(coin.confirmations, 1);
    assert.equal(coin.amountcommitment, out.valuecommitment);
    assert.equal(coin.assetcommitment, out.assetcommitment);
    assert.notEqual(coin.amountblinder, '0'.repeat(64));
  });

  test('the user unblinds the payment with dumpblindingkey and unblindrawtransaction', async () => {
    const key = await user.call<string>('dumpblindingkey', receipt.address);
    assert.match(key, /^[0-9a-f]{64}$/);
    assert.deepEqual(
      await operator.error('dumpblindingkey', receipt.address),
      { code: -5, message: 'CT address blinding key does not match the blinding key in wallet' },
      'the operator\'s key for that script is not the one the address carries',
    );
    const hex = await rpc.call<string>('getrawtransaction', receipt.txid);
    const { hex: opened } = await user.call<{ hex: string }>('unblindrawtransaction', hex);
    const decoded = await rpc.call<RawTx>('decoderawtransaction', opened);
    assert.ok(decoded.vout.some((o) => o.value === 1.25), 'the user\'s output is explicit now');
    const { hex: notOpened } = await rpc.for('miner').call<{ hex: string }>('unblindrawtransaction', hex);
    assert.ok(!(await rpc.call<RawTx>('decoderawtransaction', notOpened)).vout.some((o) => o.value === 1.25), 'others cannot');
  });

  test('a send larger than the balance fails with -6 Insufficient funds', async () => {
    const address = await operator.call<string>('getnewaddress');
    const error = await user.error('sendtoaddress', address, 52);
    assert.deepEqual(error, { code: -6, message: 'Insufficient funds' });
    assert.deepEqual(await user.error('sendtoaddress', 'nonsense', 1), { code: -5, message: 'Invalid Bitcoin address: nonsense' });
    assert.equal((await user.error('sendtoaddress', address, 0.00000001, '', '', true)).code, -4, 'too small to pay the fee');
  });

  test('the user spends the blinded coin (and more) back to the operator', async () => {
    const address = await operator.call<string>('getnewaddress');
    const txid = await user.call<string>('sendtoaddress', address, 51);
    await rpc.call('generatetoaddress', 1, burn);
    const coins = await operator.call<Unspent[]>('listunspent', 1, 9999999, [address]);
    assert.deepEqual(coins.map((c) => [c.txid, c.amount]), [[txid, 51]]);
    const left = (await user.call<Balances>('getbalances')).mine.trusted.bitcoin;
    assert.ok(left > 0.2 && left < 0.25, `change ${left}`);
  });

  test('invalidateblock moves a confirmed receipt back to untrusted_pending', async () => {
    const address = await user.call<string>('getnewaddress');
    await operator.call<string>('sendtoaddress', address, 2);
    const [hash] = await rpc.call<string[]>('generatetoaddress', 1, burn);
    const before = (await user.call<Balances>('getbalances')).mine;
    await rpc.call('invalidateblock', hash);
    const after = (await user.call<Balances>('getbalances')).mine;
    assert.equal(after.untrusted_pending.bitcoin, 2);
    assert.ok(Math.abs(before.trusted.bitcoin - after.trusted.bitcoin - 2) < 1e-9, 'trusted lost exactly the receipt');
    await rpc.call('generatetoaddress', 1, burn);
    assert.equal((await user.call<Balances>('getbalances')).mine.untrusted_pending.bitcoin, 0);
  });

  test('to an unconfidential address the payment stays explicit', async () => {
    const info = await user.call<{ unconfidential: string; scriptPubKey: string }>('getaddressinfo', await user.call<string>('getnewaddress'));
    const txid = await operator.call<string>('sendtoaddress', info.unconfidential, 0.5);
    const out = (await rpc.call<RawTx>('getrawtransaction', txid, true)).vout.find((o) => o.scriptPubKey.hex === info.scriptPubKey)!;
    assert.equal(out.value, 0.5, 'explicit value');
    const [coin] = await user.call<Unspent[]>('listunspent', 0, 0, [info.unconfidential]);
    assert.deepEqual([coin.amount, coin.amountcommitment, coin.amountblinder], [0.5, undefined, '0'.repeat(64)]);
    await rpc.call('generatetoaddress', 1, burn);
  });

  test('signrawtransactionwithwallet signs the wallet\'s own input only; the signed spend is accepted', async () => {
    const info = await user.call<{ unconfidential: string; scriptPubKey: string }>('getaddressinfo', await user.call<string>('getnewaddress'));
    const funding = await operator.call<string>('sendtoaddress', info.unconfidential, 0.5);
    await rpc.call('generatetoaddress', 1, burn);
    const vout = (await rpc.call<RawTx>('getrawtransaction', funding, true)).vout.find((o) => o.scriptPubKey.hex === info.scriptPubKey)!.n;
    const explicit = (sat: number) => [ElementsValue.fromNumber(sat).bytes, AssetHash.fromHex(REGTEST_POLICY_ASSET).bytes, Buffer.of(0)] as const;
    const tx = new Transaction();
    tx.version = 2;
    tx.addInput(Buffer.from(funding, 'hex').reverse(), vout, 0xfffffffd);
    tx.addOutput(Buffer.from(info.scriptPubKey, 'hex'), ...explicit(49_999_000));
    tx.addOutput(Buffer.alloc(0), ...explicit(1_000));

    const notOurs = await operator.call<{ hex: string; complete: boolean; errors: { txid: string; vout: number; error: string }[] }>('signrawtransactionwithwallet', tx.toHex());
    assert.equal(notOurs.complete, false);
    assert.equal(notOurs.hex, tx.toHex(), 'nothing signed');
    assert.deepEqual(notOurs.errors.map((e) => [e.txid, e.vout, e.error]), [[funding, vout, 'Unable to sign input, invalid stack size (possibly missing key)']]);

    const signed = await user.call<{ hex: string; complete: boolean; errors?: unknown }>('signrawtransactionwithwallet', tx.toHex());
    assert.deepEqual([signed.complete, signed.errors], [true, undefined]);
    assert.equal(Transaction.fromHex(signed.hex).ins[0].witness.length, 2, 'signature and key');
    const txid = await rpc.call<string>('sendrawtransaction', signed.hex);
    assert.equal(txid, tx.getId());
    const spent = await user.call<{ complete: boolean; errors: { error: string }[] }>('signrawtransactionwithwallet', tx.toHex());
    assert.deepEqual([spent.complete, spent.errors[0].error], [false, 'Input not found or already spent']);
    assert.equal((await user.error('signrawtransactionwithwallet', 'zz')).code, -22);
    await rpc.call('generatetoaddress', 1, burn);
  });

  test('a coinbase paying the wallet is immature, and listunspent leaves it out unless asked', async () => {
    const address = await user.call<string>('getnewaddress');
    await rpc.call('generatetoaddress', 1, address);
    assert.deepEqual((await user.call<Balances>('getbalances')).mine.immature, { bitcoin: 50 });
    assert.deepEqual(await user.call('listunspent', 1, 9999999, [address]), []);
    const [coin] = await user.call<Unspent[]>('listunspent', 1, 9999999, [address], true, { include_immature_coinbase: true });
    assert.equal(coin.amount, 50);
  });

  test('a reorg dropping the wallet\'s spend gives the spent coin back', async () => {
    const all = await user.call<Unspent[]>('listunspent', 1, 9999999, [], true, { include_immature_coinbase: true });
    const coinbase = all.find((c) => c.amount === 50)!;
    await rpc.call('generatetoaddress', 101 - coinbase.confirmations, burn);
    assert.equal((await user.call<Balances>('getbalances')).mine.immature.bitcoin, 0, 'mature at 101 confirmations');
    const txid = await user.call<string>('sendtoaddress', await operator.call<string>('getnewaddress'), 49.5);
    await rpc.call('generatetoaddress', 1, burn);
    // Two blocks back the coinbase is one confirmation short of spendable: the spend cannot return to the mempool.
    await rpc.call('invalidateblock', await rpc.call('getblockhash', (await rpc.call<number>('getblockcount')) - 2));
    assert.ok(!(await rpc.call<string[]>('getrawmempool')).includes(txid), 'the spend is gone');
    const [back] = await user.call<Unspent[]>('listunspent', 1, 9999999, [], true, { include_immature_coinbase: true, minimumAmount: 50 });
    assert.deepEqual([back.txid, back.vout, back.confirmations], [coinbase.txid, coinbase.vout, 99]);
    assert.equal((await user.call<Balances>('getbalances')).mine.immature.bitcoin, 50);
  });

  test('reopening the devnet keeps wallets, keys and balances', async () => {
    const balances = await user.call<Balances>('getbalances');
    const address = await user.call<string>('getnewaddress');
    const loaded = (await rpc.call<string[]>('listwallets')).sort();
    await devnet.close();
    await open();
    assert.deepEqual((await rpc.call<string[]>('listwallets')).sort(), loaded);
    assert.deepEqual((await user.call<Balances>('getbalances')).mine, balances.mine);
    assert.equal((await user.call<{ ismine: boolean }>('getaddressinfo', address)).ismine, true, 'issued keys persist');
    assert.notEqual(await user.call<string>('getnewaddress'), address, 'and the next one is new');
    assert.equal((await rpc.error('createwallet', 'user')).code, -4);
  });
});

describe('startDevnet', () => {
  test('starts the Elements node and writes its entry to devnet.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-devnet-elements-'));
    const started = await startDevnet({ dataDir: dir, ...ephemeralDevnetPorts });
    try {
      const info = JSON.parse(readFileSync(join(dir, 'devnet.json'), 'utf8')) as DevnetInfo;
      assert.match(info.elements.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.deepEqual(info.elements.wallets, { operator: 'operator', user: 'user' });
      assert.equal(info.elements.rpcUser, started.elements.rpcUser);
      const rpc = new Rpc(started.elements).for('operator');
      assert.deepEqual((await rpc.call<Balances>('getbalances')).mine.trusted, { bitcoin: 50 });
    } finally {
      await started.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('blockIntervalMs mines on the Elements chain as on the bitcoin chain', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-devnet-timer-'));
    const started = await startDevnet({ dataDir: dir, ...ephemeralDevnetPorts, blockIntervalMs: 50 });
    try {
      const heights = () => [started.bitcoin.node.height, started.elements.node.height];
      const [bitcoin, elements] = heights();
      const deadline = Date.now() + 10_000;
      while ((heights()[0] < bitcoin + 3 || heights()[1] < elements + 3) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.ok(heights()[0] >= bitcoin + 3 && heights()[1] >= elements + 3, `heights ${heights()} from ${[bitcoin, elements]}`);
    } finally {
      await started.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
