// Replace-by-fee on a devnet node started with fullRbf: a conflicting transaction replaces the mempool ones it
// conflicts with (and their descendants) only when it pays a higher fee rate and for everything it evicts plus
// its own relay, with Core's reject texts otherwise; the replacement is what gets mined.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreRpcClient, RpcError } from '@ferry/sdk/chains/core-rpc.js';
import { startBitcoinDevnet, type BitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';
import { addressOf, p2wpkhScript, spendP2wpkh, walletKey, type FundingOutput } from '../helpers/htlc.ts';

let dataDir: string;
let devnet: BitcoinDevnet;
let rpc: CoreRpcClient;
let minerAddress: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-rbf-'));
  devnet = await startBitcoinDevnet({ dataDir, port: 0, fullRbf: true });
  rpc = new CoreRpcClient({ url: devnet.rpcUrl, user: devnet.rpcUser, password: devnet.rpcPassword });
  await rpc.call('createwallet', ['miner']);
  minerAddress = await rpc.wallet('miner').getNewAddress();
});

after(async () => {
  await devnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function fundTestKey(amount: bigint): Promise<FundingOutput> {
  const script = p2wpkhScript(walletKey.publicKey);
  const txid = await rpc.wallet(devnet.wallets.user).sendToAddress(addressOf(script), Number(amount) / 1e8);
  await rpc.generateToAddress(1, minerAddress);
  const tx = await rpc.decodeRawTransaction(await rpc.getRawTransactionHex(txid));
  const vout = tx.vout.find((o) => o.scriptPubKey.hex === Buffer.from(script).toString('hex'))!;
  return { txid, vout: vout.n, value: amount, script };
}

async function rejects(txHex: string, message: RegExp): Promise<void> {
  await assert.rejects(rpc.sendRawTransaction(txHex), (error: unknown) => {
    assert.ok(error instanceof RpcError, String(error));
    assert.equal(error.code, -26, error.message);
    assert.match(error.message, message);
    return true;
  });
}

describe('devnet full RBF', () => {
  test('a replacement must outbid the fee rate and the total fees it evicts; then it evicts the tree and is mined', async () => {
    const funding = await fundTestKey(100_000n);
    const original = spendP2wpkh(funding, { fee: 500n });
    const child = spendP2wpkh({ txid: original.txid, vout: 0, value: 99_500n, script: p2wpkhScript(walletKey.publicKey) }, { fee: 500n });
    assert.equal(await rpc.sendRawTransaction(original.hex), original.txid);
    assert.equal(await rpc.sendRawTransaction(child.hex), child.txid);

    await rejects(spendP2wpkh(funding, { fee: 400n }).hex, /^insufficient fee, rejecting replacement \w{64}; new feerate [\d.]+ BTC\/kvB <= old feerate [\d.]+ BTC\/kvB$/);
    await rejects(spendP2wpkh(funding, { fee: 900n }).hex, /^insufficient fee, rejecting replacement \w{64}, less fees than conflicting txs; 0.000009 < 0.00001$/);
    await rejects(spendP2wpkh(funding, { fee: 1_050n }).hex, /^insufficient fee, rejecting replacement \w{64}, not enough additional fees to relay; 0.0000005 < 0.00000\d+$/);
    assert.deepEqual((await rpc.getRawMempool()).sort(), [original.txid, child.txid].sort(), 'refused replacements change nothing');

    const replacement = spendP2wpkh(funding, { fee: 2_000n });
    assert.equal(await rpc.sendRawTransaction(replacement.hex), replacement.txid);
    assert.deepEqual(await rpc.getRawMempool(), [replacement.txid], 'the original and its child were evicted');
    assert.equal(await rpc.getTxOut(original.txid, 0, true), null);

    // Replacing the replacement works the same way; the last one is what a block takes.
    const again = spendP2wpkh(funding, { fee: 5_000n });
    assert.equal(await rpc.sendRawTransaction(again.hex), again.txid);

    const [block] = await rpc.generateToAddress(1, minerAddress);
    const mined = (await rpc.getBlock(block)).tx;
    assert.ok(mined.includes(again.txid));
    assert.ok(!mined.includes(original.txid) && !mined.includes(replacement.txid));
  });
});
