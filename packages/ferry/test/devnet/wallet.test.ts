// The devnet node's wallets over RPC: every address type receives and spends (so every signer is checked by
// the node's script verifier), Core's balance states, coin listing, fee options, and wallet management.
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
let burnAddress: string;

async function rejects(promise: Promise<unknown>, code: number, message: string | RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof RpcError, String(error));
    assert.equal(error.code, code, error.message);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

async function newWallet(name: string): Promise<CoreRpcClient> {
  assert.deepEqual(await rpc.call('createwallet', [name]), { name });
  return rpc.wallet(name);
}

const mine = (blocks = 1) => rpc.generateToAddress(blocks, burnAddress);

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-wallet-'));
  devnet = await startBitcoinDevnet({ dataDir, port: 0 });
  rpc = new CoreRpcClient({ url: devnet.rpcUrl, user: devnet.rpcUser, password: devnet.rpcPassword });
  user = rpc.wallet(devnet.wallets.user);
  burnAddress = await (await newWallet('burn')).getNewAddress();
});

after(async () => {
  await devnet.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('addresses and signing', () => {
  const kinds = [
    { type: 'bech32', prefix: /^bcrt1q[a-z0-9]{38}$/, scriptType: 'witness_v0_keyhash' },
    { type: 'bech32m', prefix: /^bcrt1p[a-z0-9]{58}$/, scriptType: 'witness_v1_taproot' },
    { type: 'p2sh-segwit', prefix: /^2[1-9A-HJ-NP-Za-km-z]{33,34}$/, scriptType: 'scripthash' },
    { type: 'legacy', prefix: /^[mn][1-9A-HJ-NP-Za-km-z]{25,34}$/, scriptType: 'pubkeyhash' },
  ];

  for (const { type, prefix, scriptType } of kinds) {
    test(`${type}: receives, then spends its only coin`, async () => {
      const wallet = await newWallet(`only-${type}`);
      const address = await wallet.call<string>('getnewaddress', ['', type]);
      assert.match(address, prefix);
      const funding = await user.sendToAddress(address, 0.5);
      await mine();
      const out = (await rpc.getRawTransaction(funding)).vout.find((o) => o.scriptPubKey.address === address)!;
      assert.equal(out.scriptPubKey.type, scriptType);

      const [coin] = await wallet.listUnspent();
      assert.equal(coin.address, address);
      assert.equal(coin.amount, 0.5);
      assert.match((coin as unknown as { desc: string }).desc, /#[a-z0-9]{8}$/);

      const spend = await wallet.call<string>('sendtoaddress', [burnAddress, 0.5, '', '', true]);
      const tx = await rpc.getRawTransaction(spend);
      assert.equal(tx.vin.length, 1);
      assert.equal(tx.vin[0].txid, funding);
      assert.equal(tx.vout.length, 1, 'fee subtracted from the amount, no change');
      assert.ok(tx.vout[0].value < 0.5);
      assert.deepEqual((await wallet.getBalances()).mine, { trusted: 0, untrusted_pending: 0, immature: 0 });
    });
  }

  test('unknown address types and labels are refused', async () => {
    await rejects(user.call('getnewaddress', ['', 'p2wpkh']), -5, "Unknown address type 'p2wpkh'");
    await rejects(user.call('getnewaddress', ['*']), -11, 'Invalid label name');
  });
});

describe('balances', () => {
  test('unconfirmed change is trusted and spendable; coins from others are untrusted until confirmed', async () => {
    const alice = await newWallet('alice');
    const bob = await newWallet('bob');
    await user.sendToAddress(await alice.getNewAddress(), 2);
    await mine();

    const first = await alice.sendToAddress(await bob.getNewAddress(), 0.5);
    // Alice's only coin is now unconfirmed change: she can still pay, from it.
    const second = await alice.sendToAddress(await bob.getNewAddress(), 0.25);
    const secondTx = await rpc.getRawTransaction(second);
    assert.equal(secondTx.vin[0].txid, first);
    const fees = btcToSat(2) - btcToSat(0.75) - btcToSat((await alice.getBalances()).mine.trusted);
    assert.ok(fees > 0n && fees < 10_000n, `fees ${fees}`);

    const bobs = await bob.getBalances();
    assert.deepEqual(bobs.mine, { trusted: 0, untrusted_pending: 0.75, immature: 0 });
    await rejects(bob.sendToAddress(burnAddress, 0.1), -6, 'Insufficient funds');
    assert.equal((await bob.listUnspent()).length, 0, 'minconf 1 by default');
    const pending = await bob.listUnspent(0);
    assert.equal(pending.length, 2);
    assert.ok(pending.every((u) => u.confirmations === 0 && !(u as unknown as { safe: boolean }).safe));
    assert.equal(await bob.getBalance(), 0);

    await mine();
    assert.deepEqual((await bob.getBalances()).mine, { trusted: 0.75, untrusted_pending: 0, immature: 0 });
    assert.equal(await bob.getBalance(), 0.75);
  });

  test('a coinbase is immature until 101 confirmations', async () => {
    const miner = await newWallet('miner');
    const address = await miner.getNewAddress();
    await rpc.generateToAddress(1, address);
    assert.deepEqual((await miner.getBalances()).mine, { trusted: 0, untrusted_pending: 0, immature: 50 });
    await mine(99);
    assert.equal((await miner.getBalances()).mine.immature, 50);
    assert.equal((await miner.listUnspent()).length, 0);
    await mine(1);
    assert.deepEqual((await miner.getBalances()).mine, { trusted: 50, untrusted_pending: 0, immature: 0 });
    const info = await miner.getWalletInfo();
    assert.equal(info.walletname, 'miner');
    assert.equal(info.balance, 50);
    assert.equal(info.txcount, 1);
    assert.equal(info.descriptors, true);
  });
});

describe('sendtoaddress options', () => {
  test('fee_rate sets the fee, subtractfeefromamount makes the recipient pay it', async () => {
    const carol = await newWallet('carol');
    const before = btcToSat((await user.getBalances()).mine.trusted);
    const txid = await user.call<string>('sendtoaddress', [await carol.getNewAddress(), 1, '', '', true, false, null, null, false, 7]);
    const entry = await rpc.getMempoolEntry(txid);
    const fee = btcToSat((entry.fees as { base: number }).base);
    const vsize = entry.vsize as number;
    assert.ok(fee >= BigInt(7 * vsize) && fee <= BigInt(7 * vsize + 7 * 4), `fee ${fee} for ${vsize} vB`);
    assert.equal(btcToSat((await user.getBalances()).mine.trusted), before - 100_000_000n, 'the sender pays exactly the amount');
    assert.equal(btcToSat((await carol.getBalances()).mine.untrusted_pending), 100_000_000n - fee);

    const verbose = await user.call<{ txid: string; fee_reason: string }>('sendtoaddress', [burnAddress, 0.1, '', '', false, false, null, null, false, null, true]);
    assert.match(verbose.txid, /^[0-9a-f]{64}$/);
    assert.equal(typeof verbose.fee_reason, 'string');
  });

  test('replaceable: RBF-signalling by default, final-but-locktime sequences when false', async () => {
    const sequences = async (txid: string) => (await rpc.getRawTransaction(txid)).vin.map((input) => input.sequence);
    const rbf = await user.call<string>('sendtoaddress', [burnAddress, 0.01]);
    assert.ok((await sequences(rbf)).every((sequence) => sequence === 0xfffffffd));
    const final = await user.call<string>('sendtoaddress', [burnAddress, 0.01, '', '', false, false]);
    assert.ok((await sequences(final)).every((sequence) => sequence === 0xfffffffe));
  });

  test('bad addresses, amounts and fee rates get Core errors', async () => {
    await rejects(user.sendToAddress('bc1qnotregtest', 1), -5, 'Invalid Bitcoin address: bc1qnotregtest');
    await rejects(user.sendToAddress(burnAddress, 0), -3, 'Invalid amount for send');
    await rejects(user.sendToAddress(burnAddress, 0.000000001), -3, 'Invalid amount');
    await rejects(user.sendToAddress(burnAddress, 0.000001), -4, 'Transaction amount too small');
    await rejects(
      user.call('sendtoaddress', [burnAddress, 0.1, '', '', false, false, null, null, false, 0.5]),
      -4,
      'Fee rate (0.500 sat/vB) is lower than the minimum fee rate setting (1.000 sat/vB)',
    );
  });
});

describe('wallet management', () => {
  test('unload, fail on the unloaded wallet, load again with the same coins', async () => {
    const dave = await newWallet('dave');
    await user.sendToAddress(await dave.getNewAddress(), 0.3);
    const later = await dave.getNewAddress();
    await mine();
    await rpc.call('unloadwallet', ['dave']);
    assert.ok(!(await rpc.call<string[]>('listwallets')).includes('dave'));
    await rejects(dave.getBalances(), -18, 'Requested wallet does not exist or is not loaded');
    await user.sendToAddress(later, 0.2);
    await mine();
    // Coins that arrived while it was unloaded are found by the rescan on load.
    assert.deepEqual(await rpc.call('loadwallet', ['dave']), { name: 'dave' });
    assert.equal((await dave.getBalances()).mine.trusted, 0.5);
  });
});
