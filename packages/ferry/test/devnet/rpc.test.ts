// The devnet's Bitcoin node through Ferry's production RPC client over a real socket: Core's method
// shapes and errors, wallets, restarts, reorgs and the mempool's rejections.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreRpcClient, RpcError, btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import { startBitcoinDevnet, type BitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';
import { Transaction } from '@scure/btc-signer';
import { addressOf, p2wpkhScript, spendP2wpkh, walletKey, type FundingOutput } from '../helpers/htlc.ts';

const REGTEST_GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';

let dataDir: string;
let devnet: BitcoinDevnet;
let rpc: CoreRpcClient;
let user: CoreRpcClient;
let operator: CoreRpcClient;
let minerAddress: string;

function connect(d: BitcoinDevnet): void {
  rpc = new CoreRpcClient({ url: d.rpcUrl, user: d.rpcUser, password: d.rpcPassword });
  user = rpc.wallet(d.wallets.user);
  operator = rpc.wallet(d.wallets.operator);
}

async function rejects(promise: Promise<unknown>, code: number, message: string | RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof RpcError, `expected an RpcError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

const balances = async (client: CoreRpcClient) => {
  const { mine } = await client.getBalances();
  return { trusted: btcToSat(mine.trusted), pending: btcToSat(mine.untrusted_pending), immature: btcToSat(mine.immature) };
};

/** Pays `amount` sat to walletKey's P2WPKH address from the user wallet and confirms it. */
async function fundTestKey(amount: bigint): Promise<FundingOutput> {
  const script = p2wpkhScript(walletKey.publicKey);
  const txid = await user.sendToAddress(addressOf(script), Number(amount) / 1e8);
  await rpc.generateToAddress(1, minerAddress);
  const hex = await rpc.getRawTransactionHex(txid);
  const tx = await rpc.decodeRawTransaction(hex);
  const vout = tx.vout.find((o) => o.scriptPubKey.hex === Buffer.from(script).toString('hex'))!;
  return { txid, vout: vout.n, value: amount, script };
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-rpc-'));
  devnet = await startBitcoinDevnet({ dataDir, port: 0 });
  connect(devnet);
  await rpc.call('createwallet', ['miner']);
  minerAddress = await rpc.wallet('miner').getNewAddress();
});

after(async () => {
  await devnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Core RPC surface', () => {
  test('chain methods answer with Core shapes', async () => {
    const info = await rpc.getBlockchainInfo();
    assert.equal(info.chain, 'regtest');
    assert.equal(info.blocks, await rpc.getBlockCount());
    assert.ok(info.blocks >= 102);
    assert.equal(info.bestblockhash, await rpc.getBestBlockHash());
    assert.equal(await rpc.getBlockHash(0), REGTEST_GENESIS);

    const header = await rpc.getBlockHeader(info.bestblockhash);
    assert.equal(header.height, info.blocks);
    assert.equal(header.confirmations, 1);
    assert.equal(header.bits, '207fffff');
    assert.equal(header.previousblockhash, await rpc.getBlockHash(info.blocks - 1));
    const parent = await rpc.getBlockHeader(header.previousblockhash!);
    assert.equal(parent.nextblockhash, info.bestblockhash);
    assert.equal(parent.confirmations, 2);

    const block1 = await rpc.getBlock(info.bestblockhash);
    const block2 = await rpc.getBlockVerbose(info.bestblockhash);
    const raw = await rpc.getBlockHex(info.bestblockhash);
    assert.equal(raw.length / 2, block1.size);
    assert.deepEqual(
      block2.tx.map((t) => t.txid),
      block1.tx,
    );
    const coinbase = block2.tx[0];
    assert.ok(coinbase.vin[0].coinbase);
    assert.deepEqual(coinbase.vin[0].txinwitness, ['00'.repeat(32)]);
    // Output 1 of the coinbase is the BIP141 witness commitment.
    assert.equal(coinbase.vout[1].scriptPubKey.type, 'nulldata');
    assert.match(coinbase.vout[1].scriptPubKey.hex, /^6a24aa21a9ed[0-9a-f]{64}$/);

    const network = await rpc.getNetworkInfo();
    assert.equal(typeof network.version, 'number');
    assert.equal(network.relayfee, 0.00001);

    const fee = await rpc.estimateSmartFee(6);
    assert.equal(fee.blocks, 6);
    assert.ok(fee.feerate !== undefined && fee.feerate >= 0.00001);
    assert.equal((await rpc.estimateSmartFee(1)).blocks, 2);
  });

  test('wrong credentials get HTTP 401', async () => {
    const response = await fetch(devnet.rpcUrl, {
      method: 'POST',
      headers: { authorization: 'Basic ' + Buffer.from(`${devnet.rpcUser}:wrong`).toString('base64') },
      body: JSON.stringify({ method: 'getblockcount', params: [] }),
    });
    assert.equal(response.status, 401);
    const intruder = new CoreRpcClient({ url: devnet.rpcUrl, user: devnet.rpcUser, password: 'nope' });
    await rejects(intruder.getBlockCount(), -1, /unauthorized/);
  });

  test('unknown methods and bad parameters get Core error codes', async () => {
    await rejects(rpc.call('nosuchmethod'), -32601, 'Method not found');
    await rejects(rpc.call('getblockhash', ['one']), -3, 'JSON value of type string is not of expected type number');
    await rejects(rpc.getBlockHash(1_000_000), -8, 'Block height out of range');
    await rejects(rpc.getBlockHeader('00'.repeat(32)), -5, 'Block not found');
    await rejects(rpc.getBlockHeader('xyz'), -8, "hash must be of length 64 (not 3, for 'xyz')");
    await rejects(rpc.call('getblockhash', []), -1, /getblockhash/);
    await rejects(rpc.getRawTransaction('11'.repeat(32)), -5, /No such mempool or blockchain transaction/);
    await rejects(rpc.sendRawTransaction('00'), -22, 'TX decode failed. Make sure the tx has at least one input.');
    await rejects(rpc.decodeRawTransaction('zz'), -22, 'TX decode failed');
    // Three wallets are loaded: a wallet call without /wallet/<name> is ambiguous.
    await rejects(rpc.getBalance(), -19, 'Wallet file not specified (must request wallet RPC through /wallet/<filename> uri-path).');
    await rejects(rpc.wallet('ghost').getBalance(), -18, 'Requested wallet does not exist or is not loaded');
    await rejects(rpc.call('createwallet', ['user']), -4, /Database already exists/);
    await rejects(rpc.call('loadwallet', ['user']), -35, 'Wallet "user" is already loaded.');
    await rejects(rpc.call('loadwallet', ['ghost']), -18, /Path does not exist/);
    assert.deepEqual((await rpc.call<string[]>('listwallets')).sort(), ['miner', 'operator', 'user']);
  });

  test('JSON-RPC 2.0 and batches', async () => {
    const auth = 'Basic ' + Buffer.from(`${devnet.rpcUser}:${devnet.rpcPassword}`).toString('base64');
    const response = await fetch(devnet.rpcUrl, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getblockcount' },
        { jsonrpc: '2.0', id: 2, method: 'nosuchmethod' },
        { jsonrpc: '1.0', id: 3, method: 'getblockhash', params: { height: 0 } },
      ]),
    });
    assert.equal(response.status, 200);
    const replies = (await response.json()) as Record<string, unknown>[];
    assert.deepEqual(replies[0], { jsonrpc: '2.0', result: await rpc.getBlockCount(), id: 1 });
    assert.deepEqual(replies[1], { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 2 });
    assert.deepEqual(replies[2], { result: REGTEST_GENESIS, error: null, id: 3 });
  });
});

describe('wallets and blocks', () => {
  test('both devnet wallets start with mature coins', async () => {
    for (const client of [user, operator]) {
      const { trusted } = await balances(client);
      assert.ok(trusted >= 10n * 100_000_000n, `trusted ${trusted}`);
      const unspent = await client.listUnspent();
      assert.ok(unspent.length > 0);
      assert.ok(unspent.every((u) => u.confirmations >= 101));
    }
  });

  test('sendtoaddress moves coins, fee paid by the sender; a block confirms it', async () => {
    const userBefore = await balances(user);
    const operatorBefore = await balances(operator);
    const address = await operator.getNewAddress();
    const txid = await user.sendToAddress(address, 1.25);

    const entry = await rpc.getMempoolEntry(txid);
    const fee = btcToSat((entry.fees as { base: number }).base);
    assert.ok(fee > 0n);
    assert.ok(fee >= BigInt(entry.vsize as number), 'pays at least 1 sat/vB');
    assert.deepEqual(await rpc.getRawMempool(), [txid]);

    const userSent = await balances(user);
    const operatorPending = await balances(operator);
    assert.equal(userSent.trusted, userBefore.trusted - 125_000_000n - fee, 'user: amount + fee, change stays trusted');
    assert.equal(operatorPending.trusted, operatorBefore.trusted);
    assert.equal(operatorPending.pending, operatorBefore.pending + 125_000_000n);

    const [hash] = await rpc.generateToAddress(1, minerAddress);
    const block = await rpc.getBlock(hash);
    assert.deepEqual(block.tx.slice(1), [txid]);
    const confirmed = await rpc.getRawTransaction(txid);
    assert.equal(confirmed.blockhash, hash);
    assert.equal(confirmed.confirmations, 1);
    assert.deepEqual(await rpc.getRawMempool(), []);
    // The coinbase collected the fee.
    const coinbase = (await rpc.getBlockVerbose(hash)).tx[0];
    assert.equal(btcToSat(coinbase.vout[0].value), 5_000_000_000n + fee);

    assert.equal((await balances(user)).trusted, userSent.trusted);
    const operatorAfter = await balances(operator);
    assert.equal(operatorAfter.trusted, operatorBefore.trusted + 125_000_000n);
    assert.equal(operatorAfter.pending, 0n);
    const received = (await operator.listUnspent()).find((u) => u.txid === txid)!;
    assert.equal(received.address, address);
    assert.equal(received.amount, 1.25);
    assert.equal(received.confirmations, 1);
  });

  test('insufficient funds is -6', async () => {
    const { trusted } = await balances(user);
    await rejects(user.sendToAddress(minerAddress, Number(trusted) / 1e8 + 1), -6, 'Insufficient funds');
  });

  test('a restarted devnet keeps chain, tip, mempool and balances', async () => {
    const pendingTxid = await user.sendToAddress(minerAddress, 0.5);
    const tip = await rpc.getBestBlockHash();
    const height = await rpc.getBlockCount();
    const before = { user: await balances(user), operator: await balances(operator), miner: await balances(rpc.wallet('miner')) };
    const credentials = [devnet.rpcUser, devnet.rpcPassword];

    await devnet.close();
    const started = Date.now();
    devnet = await startBitcoinDevnet({ dataDir, port: 0 });
    assert.ok(Date.now() - started < 2000, `restart took ${Date.now() - started} ms`);
    connect(devnet);

    assert.deepEqual([devnet.rpcUser, devnet.rpcPassword], credentials);
    assert.equal(await rpc.getBestBlockHash(), tip);
    assert.equal(await rpc.getBlockCount(), height);
    assert.deepEqual(await rpc.getRawMempool(), [pendingTxid]);
    assert.deepEqual((await rpc.call<string[]>('listwallets')).sort(), ['miner', 'operator', 'user']);
    assert.deepEqual(
      { user: await balances(user), operator: await balances(operator), miner: await balances(rpc.wallet('miner')) },
      before,
    );
    await rpc.generateToAddress(1, minerAddress);
  });

  test('invalidateblock disconnects, returns the txs to the mempool, and a new block reuses the height', async () => {
    const operatorBefore = await balances(operator);
    const txid = await user.sendToAddress(await operator.getNewAddress('', 'bech32m'), 2);
    const [hash] = await rpc.generateToAddress(1, minerAddress);
    const height = await rpc.getBlockCount();
    const parent = (await rpc.getBlockHeader(hash)).previousblockhash!;
    assert.equal((await balances(operator)).trusted, operatorBefore.trusted + 200_000_000n);

    await rpc.invalidateBlock(hash);
    assert.equal(await rpc.getBestBlockHash(), parent);
    assert.equal(await rpc.getBlockCount(), height - 1);
    assert.deepEqual(await rpc.getRawMempool(), [txid]);
    assert.equal((await rpc.getBlockHeader(hash)).confirmations, -1);
    const back = await rpc.getRawTransaction(txid);
    assert.equal(back.blockhash, undefined);
    assert.equal(back.confirmations, undefined);
    const operatorAfter = await balances(operator);
    assert.equal(operatorAfter.trusted, operatorBefore.trusted);
    assert.equal(operatorAfter.pending, operatorBefore.pending + 200_000_000n);

    const [replacement] = await rpc.generateToAddress(1, minerAddress);
    assert.notEqual(replacement, hash);
    assert.equal(await rpc.getBlockHash(height), replacement);
    assert.equal((await rpc.getRawTransaction(txid)).blockhash, replacement);
    assert.equal((await balances(operator)).trusted, operatorBefore.trusted + 200_000_000n);
  });
});

describe('mempool rejections', () => {
  test('double spend, overspend, unknown outpoint, already mined', async () => {
    const funding = await fundTestKey(100_000n);
    const first = spendP2wpkh(funding, { fee: 500n });
    const second = spendP2wpkh(funding, { fee: 800n });
    const overspend = spendP2wpkh(funding, { outputAmount: 100_001n });

    await rejects(
      rpc.sendRawTransaction(overspend.hex),
      -26,
      'bad-txns-in-belowout, value in (0.001) < value out (0.00100001)',
    );
    const [check] = await rpc.testMempoolAccept([overspend.hex]);
    assert.equal(check.allowed, false);
    assert.equal(check['reject-reason'], 'bad-txns-in-belowout');

    assert.equal(await rpc.sendRawTransaction(first.hex), first.txid);
    // Re-sending a mempool transaction is not an error.
    assert.equal(await rpc.sendRawTransaction(first.hex), first.txid);
    await rejects(rpc.sendRawTransaction(second.hex), -26, 'txn-mempool-conflict');

    const unknown = spendP2wpkh({ ...funding, txid: 'ab'.repeat(32) });
    await rejects(rpc.sendRawTransaction(unknown.hex), -25, 'bad-txns-inputs-missingorspent');

    await rpc.generateToAddress(1, minerAddress);
    await rejects(rpc.sendRawTransaction(second.hex), -25, 'bad-txns-inputs-missingorspent');
    await rejects(rpc.sendRawTransaction(first.hex), -27, 'Transaction already in block chain');
    assert.equal(await rpc.getTxOut(funding.txid, funding.vout), null);
    const out = await rpc.getTxOut(first.txid, 0);
    assert.equal(out?.value, 0.000995);
    assert.equal(out?.confirmations, 1);
  });

  test('an immature coinbase cannot be spent', async () => {
    const script = p2wpkhScript(walletKey.publicKey);
    const [hash] = await rpc.generateToAddress(1, addressOf(script));
    const coinbase = (await rpc.getBlockVerbose(hash)).tx[0];
    const funding = findCoinbaseOutput(coinbase.txid, coinbase.vout[0].value, script);
    const spend = spendP2wpkh(funding, { fee: 1_000n });
    await rejects(
      rpc.sendRawTransaction(spend.hex),
      -26,
      'bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth 1',
    );
  });

  test('time locks: non-final and BIP68', async () => {
    const funding = await fundTestKey(50_000n);
    const height = await rpc.getBlockCount();
    const early = spendP2wpkh(funding, { lockTime: height + 1 });
    await rejects(rpc.sendRawTransaction(early.hex), -26, 'non-final');
    assert.equal((await rpc.testMempoolAccept([early.hex]))[0]['reject-reason'], 'non-final');
    // Final once the next block's height passes the lock time.
    await rpc.generateToAddress(1, minerAddress);
    const [ok] = await rpc.testMempoolAccept([early.hex]);
    assert.equal(ok.allowed, true, JSON.stringify(ok));
    assert.equal(ok.vsize, (await rpc.decodeRawTransaction(early.hex)).vsize);

    // BIP68: a relative lock of 3 blocks on a coin confirmed in block h is final from block h + 3.
    const relative = spendWithSequence(await fundTestKey(40_000n), 3);
    await rejects(rpc.sendRawTransaction(relative), -26, 'non-BIP68-final');
    await rpc.generateToAddress(1, minerAddress);
    await rejects(rpc.sendRawTransaction(relative), -26, 'non-BIP68-final');
    await rpc.generateToAddress(1, minerAddress);
    assert.match(await rpc.sendRawTransaction(relative), /^[0-9a-f]{64}$/);
  });

  test('a bad signature is a mandatory script failure', async () => {
    const funding = await fundTestKey(30_000n);
    const forged = spendP2wpkh(funding, { tamperSignature: true });
    await rejects(rpc.sendRawTransaction(forged.hex), -26, /^mandatory-script-verify-flag-failed \(/);
    const good = spendP2wpkh(funding);
    assert.equal(await rpc.sendRawTransaction(good.hex), good.txid);
  });
});

function spendWithSequence(funding: FundingOutput, sequence: number): string {
  const tx = new Transaction({ version: 2 });
  tx.addInput({ txid: funding.txid, index: funding.vout, sequence, witnessUtxo: { script: funding.script, amount: funding.value } });
  tx.addOutput({ script: funding.script, amount: funding.value - 1_000n });
  tx.signIdx(walletKey.privateKey, 0);
  tx.finalize();
  return tx.hex;
}

function findCoinbaseOutput(txid: string, valueBtc: number, script: Uint8Array): FundingOutput {
  return { txid, vout: 0, value: btcToSat(valueBtc), script };
}
