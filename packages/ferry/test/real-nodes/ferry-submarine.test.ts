// Ferry pays through a real Core Lightning node: Ferry (engine in process, on the devnet's Bitcoin node) is
// configured as an operator would configure it — lightning.backend "cln" and lightning.cln.rpcSocket, lightningd's
// JSON-RPC socket, no hold plugin — and a user's submarine swap pays a BOLT11 invoice, then a BOLT12 invoice of
// another real lightningd: the payee's node records it paid, channel balances move, and Ferry claims the lockup on
// the devnet chain (`transaction.claimed`). Skips, saying why, without the binaries (scripts/real-nodes.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { BitcoinBackend } from '../../src/chains/bitcoin/backend.ts';
import { bitcoinCodec } from '../../src/chains/bitcoin/codec.ts';
import { silentLogger as silentWatcherLogger } from '../../src/chains/logger.ts';
import { ChainWatcher } from '../../src/chains/watcher/watcher.ts';
import { loadConfig } from '../../src/config/index.ts';
import { openStorage, type Storage } from '../../src/db/index.ts';
import { SwapEngine } from '../../src/engine/index.ts';
import type { LightningBackend } from '../../src/lightning/backend.ts';
import { ClnBackend } from '../../src/lightning/cln/client.ts';
import { lightningBackend } from '../../src/lightning/connect.ts';
import { SwapKeys } from '@ferry/sdk/keys/index.js';
import { silentLogger } from '../../src/log/index.ts';
import { newKeyPair } from '../engine/client.ts';
import { realLightningd, startRealWorld, waitFor, type RealNode, type RealWorld } from './world.ts';

const binaries = realLightningd();
// Each test skips on its own, not the describe: a skipped describe registers none of its tests, so a run without the
// binaries would count fewer tests and no skips.

describe('Ferry on a real lightningd (JSON-RPC socket): submarine swaps', () => {
  let world: RealWorld;
  let ferry: RealNode, bob: RealNode;
  let storage: Storage;
  let watcher: ChainWatcher;
  let engine: SwapEngine;
  let lightning: LightningBackend;

  before(async () => {
    if (binaries.skip) return;
    world = await startRealWorld(binaries.lightningd!, [{ name: 'ferry' }, { name: 'bob' }]);
    ({ ferry, bob } = world.nodes);
    await world.fund(ferry, 2_000_000);
    await world.openChannels(ferry, [bob], 1_000_000);

    // Ferry's Lightning node as the configuration names it: the socket, no clnrest, no rune, no hold plugin.
    const config = loadConfig({ env: { FERRY_DATA_DIR: join(world.dataDir, 'ferry'), FERRY_LIGHTNING_BACKEND: 'cln', FERRY_CLN_RPC_SOCKET: ferry.socketPath } });
    lightning = lightningBackend(config)!;
    assert.ok(lightning instanceof ClnBackend, 'lightning.cln.rpcSocket gives the CLN backend');
    storage = await openStorage(join(world.dataDir, 'ferry.sqlite'));
    watcher = new ChainWatcher({ chain: 'BTC', rpc: world.node, codec: bitcoinCodec, checkpoints: storage.checkpoints, pollIntervalMs: 50, logger: silentWatcherLogger });
    const operator = world.node.wallet(world.devnet.wallets.operator);
    engine = new SwapEngine({
      storage,
      chains: new Map([['BTC', new BitcoinBackend({ symbol: 'BTC', network: 'regtest', rpc: operator, watcher })]]),
      lightning: new Map([['BTC', lightning]]),
      keys: SwapKeys.fromMnemonic(generateMnemonic(wordlist, 256), 'regtest'),
      logger: silentLogger,
      claimDelayMs: 200, // a silent client: Ferry claims alone through the script path
      invoicePollMs: 100,
      effectRetryMs: 100,
      effectRetryMaxMs: 500,
    });
    await engine.start();
  });
  after(async () => {
    await engine?.stop();
    await watcher?.stop();
    (lightning as ClnBackend | undefined)?.close();
    await storage?.close();
    await world?.close();
  });

  async function waitForStatus(id: string, status: string, timeoutMs = 90_000): Promise<void> {
    let last: string | undefined;
    await waitFor(`swap ${id} to reach ${status} (last: ${last})`, async () => {
      await watcher.sync().catch(() => {});
      last = (await engine.status(id))?.status;
      return last === status ? true : undefined;
    }, timeoutMs);
  }

  /** A user's submarine swap paying `invoice`: locks the expected amount from the devnet's user wallet, confirms it, waits for Ferry's claim. */
  async function swapPaying(invoice: string): Promise<{ id: string; lockupTxid: string; address: string }> {
    const client = newKeyPair();
    const created = await engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(client.publicKey) });
    const lockupTxid = await world.user.sendToAddress(created.address, satToBtc(created.expectedAmount!));
    await world.mine(1);
    await waitForStatus(created.id, 'transaction.claimed');
    return { id: created.id, lockupTxid, address: created.address };
  }

  /** Ferry's claim spent the lockup output: the devnet no longer has it unspent, mempool included. */
  async function lockupSpent(lockupTxid: string, address: string): Promise<void> {
    const raw = await world.node.call<{ vout: { n: number; scriptPubKey: { address?: string } }[] }>('getrawtransaction', [lockupTxid, true]);
    const lockup = raw.vout.find((out) => out.scriptPubKey.address === address);
    assert.ok(lockup, 'the lockup pays the swap address');
    assert.equal(await world.node.call('gettxout', [lockupTxid, lockup.n, true]), null, "the lockup was spent by Ferry's claim");
  }

  const bobBalance = async () => (await bob.channels()).find((c) => c.peer_id === ferry.id)!.to_us_msat;

  test('BOLT11: the swap pays bob\'s invoice through Ferry\'s lightningd, and Ferry claims the lockup', { skip: binaries.skip }, async () => {
    const before = await bobBalance();
    const invoice = await bob.call<{ bolt11: string; payment_hash: string }>('invoice', { amount_msat: 50_000_000, label: 'swap-bolt11', description: 'paid by a swap' });
    const { lockupTxid, address } = await swapPaying(invoice.bolt11);
    const { invoices } = await bob.call<{ invoices: { status: string; amount_received_msat: number }[] }>('listinvoices', { payment_hash: invoice.payment_hash });
    assert.equal(invoices[0].status, 'paid');
    assert.equal(invoices[0].amount_received_msat, 50_000_000);
    assert.equal(await bobBalance(), before + 50_000_000, "bob's side of the channel grew by the invoice");
    await lockupSpent(lockupTxid, address);
  });

  test('BOLT12: an invoice fetched from bob\'s offer is paid by a swap', { skip: binaries.skip }, async () => {
    const offer = await bob.call<{ bolt12: string; offer_id: string }>('offer', { amount: '30000sat', description: 'swap offer' });
    const { invoice } = await ferry.call<{ invoice: string }>('fetchinvoice', { offer: offer.bolt12 });
    const before = await bobBalance();
    const { lockupTxid, address } = await swapPaying(invoice);
    const { invoices } = await bob.call<{ invoices: { status: string; amount_received_msat?: number }[] }>('listinvoices', { offer_id: offer.offer_id });
    assert.equal(invoices[0].status, 'paid');
    assert.equal(invoices[0].amount_received_msat, 30_000_000);
    assert.equal(await bobBalance(), before + 30_000_000);
    await lockupSpent(lockupTxid, address);
  });
});
