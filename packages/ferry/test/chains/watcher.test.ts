// The chain watcher against the devnet's Bitcoin node over real RPC: lockups, spends with witnesses,
// confirmations, reorgs, restarts from a checkpoint, and a node that is down.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';
import { CoreRpcClient, btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import { ChainWatcher, type ChainWatcherOptions } from '../../src/chains/watcher/watcher.ts';
import { MemoryCheckpointStore, type CheckpointStore } from '../../src/chains/checkpoint.ts';
import { silentLogger, type WatcherLogger } from '../../src/chains/logger.ts';
import type { ChainEvents, ChainEventType } from '@ferry/sdk/chains/events.js';
import { ownedOutput, scriptOf, spend } from './regtest-keys.ts';
import { bitcoinCodec } from '../../src/chains/bitcoin/codec.ts';

type Recorded = { [K in ChainEventType]: ChainEvents[K][] };

function record(watcher: ChainWatcher): Recorded {
  const events: Recorded = { lockup: [], spend: [], confirmation: [], block: [], reorg: [] };
  watcher.subscribe({
    lockup: (e) => void events.lockup.push(e),
    spend: (e) => void events.spend.push(e),
    confirmation: (e) => void events.confirmation.push(e),
    block: (e) => void events.block.push(e),
    reorg: (e) => void events.reorg.push(e),
  });
  return events;
}

/** Forgets what was recorded so far, so each step asserts only on what it caused. */
function drain(events: Recorded): Recorded {
  return Object.fromEntries(Object.entries(events).map(([type, list]) => [type, list.splice(0)])) as Recorded;
}

describe('chain watcher on the devnet bitcoin node', () => {
  let dataDir: string;
  let devnet: Awaited<ReturnType<typeof startBitcoinDevnet>>;
  let rpc: CoreRpcClient;
  let user: CoreRpcClient;
  let operator: CoreRpcClient;
  const watchers: ChainWatcher[] = [];

  const newWatcher = (options: Partial<ChainWatcherOptions> = {}) => {
    const watcher = new ChainWatcher({
      chain: 'BTC',
      rpc,
      codec: bitcoinCodec,
      checkpoints: new MemoryCheckpointStore(),
      pollIntervalMs: 60_000,
      logger: silentLogger,
      ...options,
    });
    watchers.push(watcher);
    return watcher;
  };
  // A fresh address each time, so a block mined after invalidateblock cannot repeat the dropped one.
  const mine = async (blocks = 1) => rpc.generateToAddress(blocks, await operator.getNewAddress());
  const tipHeight = () => rpc.getBlockCount();

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ferry-watcher-'));
    devnet = await startBitcoinDevnet({ dataDir, port: 0, fund: true });
    rpc = new CoreRpcClient({ url: devnet.rpcUrl, user: devnet.rpcUser, password: devnet.rpcPassword });
    user = rpc.wallet(devnet.wallets.user);
    operator = rpc.wallet(devnet.wallets.operator);
  });

  after(async () => {
    for (const watcher of watchers) await watcher.stop();
    await devnet?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('reports a lockup to a watched script in the mempool, then confirmed, and ignores unwatched payments', async () => {
    const watcher = newWatcher();
    const events = record(watcher);
    await watcher.sync();
    drain(events);

    const watched = await user.getNewAddress();
    const unwatched = await user.getNewAddress();
    watcher.watchScript(scriptOf(watched));
    const txid = await user.sendToAddress(watched, 1.25);
    const otherTxid = await user.sendToAddress(unwatched, 0.5);

    await watcher.sync();
    await watcher.sync(); // the same mempool twice must not report twice
    let seen = drain(events);
    assert.equal(seen.lockup.length, 1);
    const lockup = seen.lockup[0];
    assert.equal(lockup.txid, txid);
    assert.equal(lockup.chain, 'BTC');
    assert.equal(lockup.confirmations, 0);
    assert.equal(lockup.blockHeight, undefined);
    assert.equal(lockup.value, btcToSat(1.25));
    assert.equal(lockup.scriptHex, scriptOf(watched));
    assert.equal(await rpc.getRawTransactionHex(txid), lockup.txHex);
    const decoded = await rpc.decodeRawTransaction(lockup.txHex);
    assert.equal(decoded.vout[lockup.vout].scriptPubKey.hex, scriptOf(watched));

    const [blockHash] = await mine();
    const height = await tipHeight();
    await watcher.sync();
    seen = drain(events);
    assert.deepEqual(
      seen.lockup.map((e) => [e.txid, e.vout, e.confirmations, e.blockHeight, e.blockHash]),
      [[txid, lockup.vout, 1, height, blockHash]],
    );
    assert.deepEqual(seen.confirmation, [{ chain: 'BTC', txid, confirmations: 1, blockHeight: height, blockHash }]);
    assert.deepEqual(seen.block, [{ chain: 'BTC', height, hash: blockHash }]);
    assert.ok(![...seen.lockup, ...seen.spend].some((e) => e.txid === otherTxid));

    await mine(2);
    await watcher.sync();
    seen = drain(events);
    assert.deepEqual(
      seen.confirmation.map((e) => [e.txid, e.confirmations, e.blockHeight]),
      [
        [txid, 2, height],
        [txid, 3, height],
      ],
    );
    assert.equal(seen.lockup.length, 0);
    assert.deepEqual(watcher.tip, { height: height + 2, hash: await rpc.getBestBlockHash() });
  });

  test('reports spends of watched outputs with the spending witness (P2WPKH and P2TR)', async () => {
    const watcher = newWatcher();
    const events = record(watcher);
    await watcher.sync();
    const segwit = ownedOutput('wpkh');
    const taproot = ownedOutput('tr');
    watcher.watchScript(segwit.scriptHex);
    watcher.watchScript(taproot.scriptHex);
    await user.sendToAddress(segwit.address, 0.3);
    await user.sendToAddress(taproot.address, 0.2);
    await mine();
    await watcher.sync();
    const lockups = drain(events).lockup.filter((e) => e.confirmations === 1);
    const coinOf = (owner: typeof segwit) => {
      const lockup = lockups.find((e) => e.scriptHex === owner.scriptHex);
      assert.ok(lockup, `lockup to ${owner.kind} reported`);
      return { owner, txid: lockup.txid, vout: lockup.vout, value: lockup.value };
    };
    const coins = [coinOf(segwit), coinOf(taproot)];

    const spending = spend(coins, await user.getNewAddress());
    assert.equal(await rpc.sendRawTransaction(spending.hex), spending.txid);
    await watcher.sync();
    let seen = drain(events);
    assert.deepEqual(
      seen.spend.map((e) => [e.outpoint, e.txid, e.inputIndex, e.witness, e.confirmations, e.blockHeight]),
      coins.map((coin, index) => [
        { txid: coin.txid, vout: coin.vout },
        spending.txid,
        index,
        spending.witnesses[index],
        0,
        undefined,
      ]),
    );
    assert.equal(seen.spend[0].txHex, spending.hex);
    assert.equal(seen.spend[0].witness.length, 2, 'P2WPKH witness: signature and public key');
    assert.equal(seen.spend[1].witness.length, 1, 'P2TR key path witness: one signature');

    const [blockHash] = await mine();
    await watcher.sync();
    seen = drain(events);
    assert.deepEqual(
      seen.spend.map((e) => [e.txid, e.inputIndex, e.confirmations, e.blockHash]),
      [
        [spending.txid, 0, 1, blockHash],
        [spending.txid, 1, 1, blockHash],
      ],
    );
  });

  test('watchOutpoint reports the spend of an output it did not see being created', async () => {
    const owner = ownedOutput('wpkh');
    const fundingTxid = await user.sendToAddress(owner.address, 0.1);
    await mine();
    const funding = await rpc.getRawTransaction(fundingTxid);
    const vout = funding.vout.findIndex((o) => o.scriptPubKey.hex === owner.scriptHex);

    const watcher = newWatcher();
    const events = record(watcher);
    await watcher.sync();
    watcher.watchOutpoint(fundingTxid, vout);
    const spending = spend([{ owner, txid: fundingTxid, vout, value: btcToSat(0.1) }], await user.getNewAddress());
    await rpc.sendRawTransaction(spending.hex);
    await watcher.sync();
    const seen = drain(events);
    assert.deepEqual(
      seen.spend.map((e) => [e.outpoint, e.txid, e.witness]),
      [[{ txid: fundingTxid, vout }, spending.txid, spending.witnesses[0]]],
    );
    assert.equal(seen.lockup.length, 0);
  });

  test('reorg: the dropped block is reported, its watched tx goes back to the mempool, then confirms anew', async () => {
    const watcher = newWatcher();
    const events = record(watcher);
    await watcher.sync();
    const owner = ownedOutput('wpkh');
    watcher.watchScript(owner.scriptHex);
    const txid = await user.sendToAddress(owner.address, 0.4);
    const [dropped] = await mine();
    const height = await tipHeight();
    await watcher.sync();
    assert.deepEqual(drain(events).lockup.map((e) => [e.txid, e.confirmations, e.blockHash]), [[txid, 1, dropped]]);

    await rpc.invalidateBlock(dropped);
    await watcher.sync();
    let seen = drain(events);
    assert.deepEqual(seen.reorg, [
      {
        chain: 'BTC',
        disconnected: [{ height, hash: dropped }],
        forkHeight: height - 1,
        newTip: { height: height - 1, hash: await rpc.getBestBlockHash() },
      },
    ]);
    assert.deepEqual(seen.lockup.map((e) => [e.txid, e.confirmations, e.blockHeight]), [[txid, 0, undefined]]);
    assert.deepEqual(watcher.tip, { height: height - 1, hash: await rpc.getBestBlockHash() });

    const [replacement] = await mine();
    assert.notEqual(replacement, dropped);
    await watcher.sync();
    seen = drain(events);
    assert.equal(seen.reorg.length, 0);
    assert.deepEqual(
      seen.lockup.map((e) => [e.txid, e.confirmations, e.blockHeight, e.blockHash]),
      [[txid, 1, height, replacement]],
    );
    assert.deepEqual(seen.confirmation.map((e) => [e.txid, e.confirmations, e.blockHash]), [[txid, 1, replacement]]);
  });

  test('reorg to a longer branch found while following blocks', async () => {
    const watcher = newWatcher();
    const events = record(watcher);
    await watcher.sync();
    const owner = ownedOutput('tr');
    watcher.watchScript(owner.scriptHex);
    const txid = await user.sendToAddress(owner.address, 0.15);
    const [first, second] = await mine(2);
    const height = await tipHeight();
    await watcher.sync();
    drain(events);

    // Replace both blocks with a longer branch before the watcher looks again.
    await rpc.invalidateBlock(first);
    const branch = await mine(3);
    await watcher.sync();
    const seen = drain(events);
    assert.deepEqual(
      seen.reorg.map((e) => [e.disconnected, e.forkHeight]),
      [
        [
          [
            { height, hash: second },
            { height: height - 1, hash: first },
          ],
          height - 2,
        ],
      ],
    );
    assert.deepEqual(
      seen.block.map((e) => e.hash),
      branch,
    );
    assert.deepEqual(
      seen.lockup.map((e) => [e.txid, e.confirmations, e.blockHash]),
      [[txid, 1, branch[0]]],
    );
    assert.deepEqual(
      seen.confirmation.map((e) => [e.txid, e.confirmations]),
      [
        [txid, 1],
        [txid, 2],
        [txid, 3],
      ],
    );
  });

  test('restart: resumes after the checkpoint, reports what was mined meanwhile, rescans nothing', async () => {
    const store: CheckpointStore = new MemoryCheckpointStore();
    const earlier = ownedOutput('wpkh');
    const missed = ownedOutput('wpkh');

    const first = newWatcher({ checkpoints: store });
    first.watchScript(earlier.scriptHex);
    await first.sync();
    const earlierTxid = await user.sendToAddress(earlier.address, 0.11);
    await mine();
    await first.sync();
    await first.stop();
    const stoppedAt = await store.get('BTC');
    assert.deepEqual(stoppedAt, { height: await tipHeight(), hash: await rpc.getBestBlockHash() });

    const missedTxid = await user.sendToAddress(missed.address, 0.22);
    const [missedBlock] = await mine(2);

    const second = newWatcher({ checkpoints: store });
    second.watchScript(earlier.scriptHex);
    second.watchScript(missed.scriptHex);
    const events = record(second);
    await second.start();
    await second.stop();
    assert.deepEqual(
      events.lockup.map((e) => [e.txid, e.confirmations, e.blockHash]),
      [[missedTxid, 1, missedBlock]],
    );
    assert.ok(!events.lockup.some((e) => e.txid === earlierTxid), 'the earlier block is not scanned again');
    assert.deepEqual(
      events.block.map((e) => e.height),
      [stoppedAt!.height + 1, stoppedAt!.height + 2],
    );
    assert.deepEqual(await store.get('BTC'), { height: stoppedAt!.height + 2, hash: await rpc.getBestBlockHash() });
  });

  test('restart after the checkpoint block was reorged away: reported as a reorg, the new branch is scanned', async () => {
    const store = new MemoryCheckpointStore();
    const owner = ownedOutput('wpkh');
    const first = newWatcher({ checkpoints: store });
    first.watchScript(owner.scriptHex);
    await first.sync();
    const txid = await user.sendToAddress(owner.address, 0.09);
    const [stale] = await mine();
    await first.sync();
    await first.stop();
    const stoppedAt = (await store.get('BTC'))!;
    assert.equal(stoppedAt.hash, stale);

    await rpc.invalidateBlock(stale);
    const branch = await mine(2);
    const second = newWatcher({ checkpoints: store });
    second.watchScript(owner.scriptHex);
    const events = record(second);
    await second.sync();
    assert.deepEqual(
      events.reorg.map((e) => [e.disconnected, e.forkHeight, e.newTip]),
      [[[stoppedAt], stoppedAt.height - 1, { height: stoppedAt.height + 1, hash: branch[1] }]],
    );
    assert.deepEqual(events.block.map((e) => e.hash), branch);
    assert.deepEqual(events.lockup.map((e) => [e.txid, e.confirmations, e.blockHash]), [[txid, 1, branch[0]]]);
    assert.deepEqual(await store.get('BTC'), { height: stoppedAt.height + 1, hash: branch[1] });
  });

  test('startHeight scans from that block when there is no checkpoint', async () => {
    const owner = ownedOutput('wpkh');
    const txid = await user.sendToAddress(owner.address, 0.05);
    const [blockHash] = await mine();
    const height = await tipHeight();
    await mine();
    const watcher = newWatcher({ startHeight: height });
    watcher.watchScript(owner.scriptHex);
    const events = record(watcher);
    await watcher.sync();
    assert.deepEqual(events.lockup.map((e) => [e.txid, e.blockHash]), [[txid, blockHash]]);
    assert.deepEqual(events.block.map((e) => e.height), [height, height + 1]);
  });

  test('polling picks up new blocks by itself', async () => {
    const owner = ownedOutput('wpkh');
    const watcher = newWatcher({ pollIntervalMs: 50 });
    watcher.watchScript(owner.scriptHex);
    const confirmed = new Promise<ChainEvents['lockup']>((resolve) =>
      watcher.on('lockup', (e) => {
        if (e.confirmations === 1) resolve(e);
      }),
    );
    await watcher.start();
    const txid = await user.sendToAddress(owner.address, 0.07);
    const [blockHash] = await mine();
    const lockup = await confirmed;
    assert.deepEqual([lockup.txid, lockup.blockHash], [txid, blockHash]);
    await watcher.stop();
  });

  test('a node that cannot be reached is logged, never thrown from start(), and retried until it answers', async () => {
    // A proxy in front of the node that drops every connection until it is let through.
    const node = new URL(devnet.rpcUrl);
    let reachable = false;
    const sockets = new Set<Socket>();
    const proxy = createServer((socket) => {
      if (!reachable) return socket.destroy();
      const upstream = connect(Number(node.port), node.hostname);
      sockets.add(socket).add(upstream);
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as { port: number };

    const errors: string[] = [];
    let recovered!: () => void;
    const recovery = new Promise<void>((resolve) => (recovered = resolve));
    const logger: WatcherLogger = {
      ...silentLogger,
      error: (message) => void errors.push(message),
      info: (message) => {
        if (message.includes('reachable again')) recovered();
      },
    };
    const watcher = newWatcher({
      rpc: new CoreRpcClient({ url: `http://127.0.0.1:${port}`, user: devnet.rpcUser, password: devnet.rpcPassword }),
      logger,
      pollIntervalMs: 20,
    });
    try {
      await watcher.start();
      await assert.rejects(watcher.sync());
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(errors, ['chain watcher: poll failed, retrying'], 'repeated failures are logged once');
      assert.equal(watcher.tip, undefined);

      reachable = true;
      await recovery;
      assert.deepEqual(watcher.tip, { height: await tipHeight(), hash: await rpc.getBestBlockHash() });
      const nextBlock = new Promise<ChainEvents['block']>((resolve) => watcher.on('block', resolve));
      const [hash] = await mine();
      assert.equal((await nextBlock).hash, hash);
    } finally {
      await watcher.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});
