// The devnet's generateblock (blocks of chosen mempool transactions, so one can stay unconfirmed) and the wallet's
// bumpfee (the same payment at a higher fee, replacing the original under the node's BIP125 checks), as Core's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreRpcClient, RpcError, btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import { startBitcoinDevnet, type BitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';

let dataDir: string;
let devnet: BitcoinDevnet;
let rpc: CoreRpcClient;
let user: CoreRpcClient;
let minerAddress: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-bumpfee-'));
  devnet = await startBitcoinDevnet({ dataDir, port: 0, fullRbf: true });
  rpc = new CoreRpcClient({ url: devnet.rpcUrl, user: devnet.rpcUser, password: devnet.rpcPassword });
  user = rpc.wallet(devnet.wallets.user);
  await rpc.call('createwallet', ['miner']);
  minerAddress = await rpc.wallet('miner').getNewAddress();
});

after(async () => {
  await devnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

type Bumped = { txid: string; origfee: number; fee: number; errors: string[] };
const feeOf = async (txid: string) => btcToSat((await rpc.getMempoolEntry(txid) as { fees: { base: number } }).fees.base);

describe('devnet generateblock and bumpfee', () => {
  test('generateblock mines exactly the transactions given; an empty list leaves the mempool as it is', async () => {
    const first = await user.sendToAddress(await rpc.wallet('miner').getNewAddress(), 0.001);
    const second = await user.sendToAddress(await rpc.wallet('miner').getNewAddress(), 0.001);
    const height = await rpc.getBlockCount();
    const { hash } = await rpc.call<{ hash: string }>('generateblock', [minerAddress, []]);
    assert.equal((await rpc.getBlock(hash)).tx.length, 1, 'only the coinbase');
    assert.deepEqual((await rpc.getRawMempool()).sort(), [first, second].sort());
    // The wallet's second payment spends the first one's change: it cannot come first, nor alone.
    await assert.rejects(rpc.call('generateblock', [minerAddress, [second]]), /comes before a transaction it spends/);
    const { hash: next } = await rpc.call<{ hash: string }>('generateblock', [minerAddress, [first]]);
    assert.deepEqual((await rpc.getBlock(next)).tx.slice(1), [first]);
    assert.deepEqual(await rpc.getRawMempool(), [second]);
    assert.equal(await rpc.getBlockCount(), height + 2);
    await assert.rejects(rpc.call('generateblock', [minerAddress, ['00'.repeat(32)]]), /not in mempool/);
    await rpc.generateToAddress(1, minerAddress);
  });

  test('bumpfee replaces a wallet payment: same recipient, higher fee from the change, the original evicted, the replacement mined', async () => {
    const recipient = await rpc.wallet('miner').getNewAddress();
    const before = btcToSat((await user.getBalances()).mine.trusted);
    const original = await user.sendToAddress(recipient, 0.002);
    const originalFee = await feeOf(original);

    await assert.rejects(user.call('bumpfee', [original, { fee_rate: 1 }]), (error: unknown) => {
      assert.ok(error instanceof RpcError);
      assert.equal(error.code, -8);
      assert.match(error.message, /^Insufficient total fee 0\.\d+, must be at least 0\.\d+ \(oldFee 0\.\d+ \+ incrementalFee 0\.\d+\)$/);
      return true;
    });
    const bumped = await user.call<Bumped>('bumpfee', [original, { fee_rate: 25 }]);
    assert.notEqual(bumped.txid, original);
    assert.equal(btcToSat(bumped.origfee), originalFee);
    assert.ok(btcToSat(bumped.fee) > originalFee * 5n, `fee ${bumped.fee} against ${originalFee}`);
    assert.deepEqual(await rpc.getRawMempool(), [bumped.txid], 'the original is evicted');

    const paid = (await rpc.decodeRawTransaction(await rpc.getRawTransactionHex(bumped.txid))).vout.filter((out) => out.scriptPubKey.address === recipient);
    assert.deepEqual(paid.map((out) => btcToSat(out.value)), [200_000n], 'the recipient is paid the same amount, once');
    await assert.rejects(user.call('bumpfee', [original]), /Invalid or non-wallet transaction id|mined, or is conflicted/);

    await rpc.generateToAddress(1, minerAddress);
    assert.ok((await rpc.getRawTransaction(bumped.txid)).blockhash, 'the replacement is mined');
    const spent = before - btcToSat((await user.getBalances()).mine.trusted);
    assert.equal(spent, 200_000n + btcToSat(bumped.fee), 'the wallet paid the amount and the new fee, once');
    await assert.rejects(user.call('bumpfee', [bumped.txid]), /mined, or is conflicted/);
  });

  test('send from a chosen unconfirmed coin pays for its parent: the package reaches the fee rate asked for', async () => {
    const recipient = await rpc.wallet('miner').getNewAddress();
    const parent = await user.call<string>('sendtoaddress', [recipient, 0.003, '', '', false, true, null, null, false, 1]);
    const change = (await user.listUnspent(0)).find((coin) => coin.txid === parent)!;
    const back = await user.getNewAddress();

    await assert.rejects(user.call('send', [[{ [back]: 0.001 }], null, null, 20, { inputs: [{ txid: parent, vout: 7 }] }]), (error: unknown) => {
      assert.ok(error instanceof RpcError);
      assert.equal(error.code, -4);
      assert.match(error.message, /^Not found pre-selected input /);
      return true;
    });
    const sent = await user.call<{ txid: string; complete: boolean }>('send', [
      [{ [back]: change.amount }],
      null,
      null,
      20,
      { inputs: [{ txid: parent, vout: change.vout }], add_inputs: false, subtract_fee_from_outputs: [0] },
    ]);
    assert.equal(sent.complete, true);
    const entry = (await rpc.getMempoolEntry(sent.txid)) as { vsize: number; depends: string[]; fees: { base: number; ancestor: number }; ancestorsize: number };
    assert.deepEqual(entry.depends, [parent], 'the child spends the parent');
    const decoded = await rpc.decodeRawTransaction(await rpc.getRawTransactionHex(sent.txid));
    assert.deepEqual(decoded.vin.map((input) => `${input.txid}:${input.vout}`), [`${parent}:${change.vout}`], 'only the chosen coin');
    assert.equal(decoded.vout.length, 1, 'the whole coin, less the fee, back to the wallet');
    const packageRate = Number(btcToSat(entry.fees.ancestor)) / entry.ancestorsize;
    assert.ok(packageRate >= 20 && packageRate < 21, `the package pays ${packageRate} sat/vB`);
    assert.ok(Number(btcToSat(entry.fees.base)) / entry.vsize > 20, 'the child alone pays more than the rate');
    await rpc.generateToAddress(1, minerAddress);
  });
});
