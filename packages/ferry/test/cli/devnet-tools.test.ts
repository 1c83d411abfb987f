// The devnet tools on every chain as a person runs them: `ferry devnet ...` child processes that find a devnet,
// started here on ephemeral ports, through its devnet.json only. BTC stays the default; --chain L-BTC acts on the
// Elements node, --chain RBTC on the EVM chain (anvil); a --chain the tools do not know is a usage error (exit 2)
// naming the choices.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JsonRpcProvider, parseEther } from 'ethers';
import { startDevnet, type Devnet } from '@ferry/devnet/index.js';
import { Rpc } from '../helpers/devnet-rpc.ts';
import { ferryBin } from '../helpers/ferry-process.ts';
import { ephemeralDevnetPorts } from '../helpers/ports.ts';

const run = promisify(execFile);
const COIN = 100_000_000;

let dataDir: string;
let devnet: Devnet;
let bitcoin: Rpc;
let elements: Rpc;

/** `ferry devnet ARGS`, its JSON output (asynchronous: this process serves the devnet it talks to). */
async function tool(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [ferryBin, 'devnet', ...args], { env: { ...process.env, FERRY_DATA_DIR: dataDir } });
  return JSON.parse(stdout);
}

/** `ferry devnet ARGS` expected to fail: its exit code and output. */
async function failing(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    await tool(...args);
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
  assert.fail(`ferry devnet ${args.join(' ')} succeeded`);
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-devnet-tools-'));
  devnet = await startDevnet({ dataDir, ...ephemeralDevnetPorts, cln: true });
  bitcoin = new Rpc(devnet.info.bitcoin);
  elements = new Rpc(devnet.info.elements);
});

after(async () => {
  await devnet?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('ferry devnet tools on every chain', () => {
  test('balances shows the BTC and the L-BTC wallets (sat) beside the Lightning channels', async () => {
    const balances = await tool('balances');
    assert.deepEqual(Object.keys(balances), ['bitcoin', 'elements', 'evm', 'lightning']);
    for (const role of ['operator', 'user']) {
      assert.deepEqual(balances.elements[role], { trusted: 50 * COIN, untrustedPending: 0, immature: 0 }, `${role}: funded once`);
    }
    assert.ok(balances.bitcoin.user.trusted > 0, 'the BTC wallets as before');
    assert.deepEqual(Object.keys(balances.lightning).sort(), ['alice', 'bob', 'cln', 'ferry']);
    // the CLN node (clnrest), read like the others: 5M + 15M on its side of its channels to alice and bob, 5M on theirs
    assert.deepEqual(balances.lightning.cln, { local: 20_000_000, remote: 10_000_000 });
  });

  test('invoice and pay with --node cln go over clnrest: alice pays the CLN node, the CLN node pays bob', async () => {
    const before = (await tool('balances')).lightning;
    const fromCln = await tool('invoice', '21000', '--node', 'cln', '--memo', 'devnet tools');
    assert.match(fromCln.invoice, /^lnbcrt210u1/);
    const paid = await tool('pay', fromCln.invoice, '--node', 'alice');
    assert.equal(paid.status, 'SUCCEEDED');
    const toBob = await tool('invoice', '5000', '--node', 'bob');
    const sent = await tool('pay', toBob.invoice, '--node', 'cln');
    assert.equal(sent.status, 'SUCCEEDED');
    assert.equal(sent.paymentHash, toBob.paymentHash);
    const after = (await tool('balances')).lightning;
    assert.equal(after.cln.local, before.cln.local + 21_000 - 5_000, 'in from alice, out to bob');
    const unknown = await failing('invoice', '1000', '--node', 'carol');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no lightning node named carol; nodes: .*cln/);
  });

  test('pay again answers the earlier payment on LND and CLN; a payment no route carries is FAILED in LND\'s words (exit 1)', async () => {
    for (const [payer, payee] of [['alice', 'bob'], ['cln', 'alice']]) {
      const { invoice, paymentHash } = await tool('invoice', '1000', '--node', payee);
      const first = await tool('pay', invoice, '--node', payer);
      assert.deepEqual([first.status, first.paymentHash], ['SUCCEEDED', paymentHash], payer);
      assert.match(first.preimage, /^[0-9a-f]{64}$/);
      const before = (await tool('balances')).lightning[payer].local;
      assert.deepEqual(await tool('pay', invoice, '--node', payer), first, `${payer}: the same payment, answered again`);
      assert.equal((await tool('balances')).lightning[payer].local, before, `${payer}: paid once`);

      // more than any channel holds: refused before an HTLC leaves, exit 1 with the payment printed
      const tooBig = await tool('invoice', '40000000', '--node', payee);
      const failed = await failing('pay', tooBig.invoice, '--node', payer);
      assert.equal(failed.code, 1);
      const printed = JSON.parse(failed.stdout);
      assert.deepEqual([printed.status, printed.paymentHash, printed.preimage], ['FAILED', tooBig.paymentHash, undefined], payer);
      assert.match(printed.failureReason, /^FAILURE_REASON_(NO_ROUTE|INSUFFICIENT_BALANCE)$/);
    }
  });

  test('send --chain L-BTC pays from the Elements user wallet; mine --chain L-BTC confirms it', async () => {
    const address = await elements.for('operator').call<string>('getnewaddress');
    const before = await tool('balances');
    const { txid } = await tool('send', address, '1.5', '--chain', 'L-BTC');
    assert.deepEqual(await elements.call('getrawmempool'), [txid], 'in the Elements mempool');
    assert.deepEqual(await bitcoin.call('getrawmempool'), [], 'not in the bitcoin one');
    const sent = await tool('balances');
    assert.equal(sent.elements.operator.untrustedPending, 1.5 * COIN);
    const fee = before.elements.user.trusted - 1.5 * COIN - sent.elements.user.trusted;
    assert.ok(fee > 0 && fee < 1_000, `the user's change back at once, less a 0.1 sat/vB fee (${fee} sat)`);

    const heights = { btc: await bitcoin.call<number>('getblockcount'), lbtc: await elements.call<number>('getblockcount') };
    const mined = await tool('mine', '2', '--chain', 'L-BTC');
    assert.equal(mined.blocks.length, 2);
    assert.equal(mined.height, heights.lbtc + 2);
    assert.equal(await bitcoin.call('getblockcount'), heights.btc, 'the bitcoin chain stays where it was');
    const confirmed = await tool('balances');
    assert.equal(confirmed.elements.operator.trusted, before.elements.operator.trusted + 1.5 * COIN);
    assert.equal(confirmed.elements.user.immature, 2 * 50 * COIN + fee, 'two coinbases to the user, one with the fee');
  });

  test('--chain BTC is the default; send --wallet picks another devnet wallet', async () => {
    const heights = { btc: await bitcoin.call<number>('getblockcount'), lbtc: await elements.call<number>('getblockcount') };
    assert.equal((await tool('mine')).height, heights.btc + 1);
    assert.equal((await tool('mine', '--chain', 'BTC')).height, heights.btc + 2);
    assert.equal(await elements.call('getblockcount'), heights.lbtc);

    const address = await elements.for('user').call<string>('getnewaddress');
    const { txid } = await tool('send', address, '0.25', '--chain', 'L-BTC', '--wallet', 'operator');
    const spent = await elements.for('operator').call<{ amount: { bitcoin: number } }>('gettransaction', txid);
    assert.equal(spent.amount.bitcoin, -0.25, 'paid by the operator wallet');
  });

  test('a --chain the tools do not know, and a bad send, are usage errors (exit 2)', async () => {
    for (const args of [['mine', '--chain', 'LTC'], ['send', 'el1qq', '1', '--chain=lbtc'], ['balances', '--chain']]) {
      const { code, stderr } = await failing(...args);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, /^--chain must be BTC, L-BTC, RBTC/, args.join(' '));
    }
    assert.match((await failing('mine', '--chain', 'LTC')).stderr, /not LTC/);
    const missing = await failing('send', 'el1qq', '--chain', 'L-BTC');
    assert.deepEqual([missing.code, missing.stderr.split('\n')[0]], [2, 'usage: ferry devnet send ADDRESS AMOUNT [--chain BTC|L-BTC|RBTC] [--wallet W] (AMOUNT in coins of the chain)']);
    // A bitcoin address is no Elements address: the node's own refusal, exit 1.
    const wrongChain = await failing('send', await bitcoin.for('operator').call<string>('getnewaddress'), '1', '--chain', 'L-BTC');
    assert.equal(wrongChain.code, 1);
    assert.match(wrongChain.stderr, /^ferry devnet send: Invalid Bitcoin address/);
  });

  test('--chain RBTC: balances in wei and RBTC, send from the user (or operator) account, mine on anvil', async () => {
    const { evm } = devnet.info;
    const provider = new JsonRpcProvider(evm.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    try {
      const before = (await tool('balances')).evm;
      assert.deepEqual(Object.keys(before), ['operator', 'user']);
      for (const role of ['operator', 'user'] as const) {
        assert.equal(before[role].address, evm.accounts[role].address);
        assert.equal(before[role].wei, (await provider.getBalance(evm.accounts[role].address)).toString(), `${role}: wei as a string`);
      }
      assert.equal(before.user.TRC20, '500000.0', 'the test tokens handed to the user');
      assert.match(before.user.rbtc, /^\d+\.\d+$/);

      const { txid } = await tool('send', evm.accounts.operator.address, '1.25', '--chain', 'RBTC');
      const receipt = (await provider.getTransactionReceipt(txid))!;
      assert.equal(receipt.from, evm.accounts.user.address, 'from the user account');
      const after = (await tool('balances')).evm;
      assert.equal(BigInt(after.operator.wei), BigInt(before.operator.wei) + parseEther('1.25'));
      assert.equal(BigInt(after.user.wei), BigInt(before.user.wei) - parseEther('1.25') - receipt.fee);

      const { txid: back } = await tool('send', evm.accounts.user.address, '0.000000000000000001', '--chain', 'RBTC', '--wallet', 'operator');
      assert.equal((await provider.getTransaction(back))!.value, 1n, 'one wei, from the operator');

      const heights = { btc: await bitcoin.call<number>('getblockcount'), evm: await provider.getBlockNumber() };
      const mined = await tool('mine', '3', '--chain', 'RBTC');
      assert.equal(mined.height, heights.evm + 3);
      assert.deepEqual(mined.blocks, [(await provider.getBlock(heights.evm + 1))!.hash, (await provider.getBlock(heights.evm + 2))!.hash, (await provider.getBlock(heights.evm + 3))!.hash]);
      assert.equal(await bitcoin.call('getblockcount'), heights.btc, 'the bitcoin chain stays where it was');
    } finally {
      provider.destroy();
    }
  });

  test('--chain RBTC refuses what is no EVM address, amount or account (exit 2)', async () => {
    const operator = devnet.info.evm.accounts.operator.address;
    for (const args of [['bcrt1qxyz', '1'], [operator, '1.0000000000000000001'], [operator, '0'], [operator]]) {
      const { code, stderr } = await failing('send', ...args, '--chain', 'RBTC');
      assert.deepEqual([code, stderr.split('\n')[0]], [2, 'usage: ferry devnet send ADDRESS AMOUNT --chain RBTC [--wallet user|operator] (a 0x address, AMOUNT in RBTC)'], args.join(' '));
    }
    const wallet = await failing('send', operator, '1', '--chain', 'RBTC', '--wallet', 'alice');
    assert.deepEqual([wallet.code, wallet.stderr.trim()], [2, '--wallet on RBTC must be operator or user, not alice']);
  });
});
