// Chain watcher: does the cost of a block depend on how many scripts are watched? It should not —
// watched scripts live in a hash index, so a block costs one lookup per output and input.
// Builds a block of 2,000 transactions on a devnet node, then times the watcher processing that
// block (RPC fetch, parse, index lookups) with no watched scripts and with 100,000.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as btc from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { startBitcoinDevnet } from '@ferry/devnet/bitcoin/index.js';
import { CoreRpcClient, btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import { ChainWatcher } from '../src/chains/watcher/watcher.ts';
import { MemoryCheckpointStore } from '../src/chains/checkpoint.ts';
import { silentLogger } from '../src/chains/logger.ts';
import { parseBlock } from '../src/chains/bitcoin/raw-block.ts';
import { findLockups, findSpends } from '../src/chains/watcher/scan.ts';
import { WatchIndex } from '../src/chains/watcher/watch-index.ts';
import { bitcoinCodec } from '../src/chains/bitcoin/codec.ts';

const REGTEST: typeof btc.NETWORK = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const TRANSACTIONS = 2_000;
const WATCHED = 100_000;
const MATCHING = 10;
const COIN = 200_000n; // sat per fanned-out output
const FEE = 1_000n;
const WARMUP = 2;
const RUNS = 7;

const randomScriptHex = () => '0014' + randomBytes(20).toString('hex');

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

/** Mines a block holding TRANSACTIONS one-input one-output transactions; returns its height and destinations. */
async function buildBigBlock(rpc: CoreRpcClient, userWallet: string, minerAddress: string) {
  const user = rpc.wallet(userWallet);
  const secretKey = secp256k1.utils.randomSecretKey();
  const owner = btc.p2wpkh(secp256k1.getPublicKey(secretKey, true), REGTEST);
  const funding = btcToSat(5);
  const fundingTxid = await user.sendToAddress(owner.address!, 5);
  await rpc.generateToAddress(1, minerAddress);
  const fundingVout = (await rpc.getRawTransaction(fundingTxid)).vout.findIndex(
    (o) => o.scriptPubKey.hex === hex.encode(owner.script),
  );

  const fanOut = new btc.Transaction();
  fanOut.addInput({ txid: fundingTxid, index: fundingVout, witnessUtxo: { script: owner.script, amount: funding } });
  for (let i = 0; i < TRANSACTIONS; i++) fanOut.addOutput({ script: owner.script, amount: COIN });
  fanOut.addOutput({ script: owner.script, amount: funding - COIN * BigInt(TRANSACTIONS) - 100_000n });
  fanOut.signIdx(secretKey, 0);
  fanOut.finalize();
  await rpc.sendRawTransaction(fanOut.hex);
  await rpc.generateToAddress(1, minerAddress);

  const destinations = Array.from({ length: TRANSACTIONS }, randomScriptHex);
  const spends = destinations.map((scriptHex, index) => {
    const tx = new btc.Transaction();
    tx.addInput({ txid: fanOut.id, index, witnessUtxo: { script: owner.script, amount: COIN } });
    tx.addOutput({ script: hex.decode(scriptHex), amount: COIN - FEE });
    tx.signIdx(secretKey, 0);
    tx.finalize();
    return tx.hex;
  });
  await inBatches(spends, 16, (txHex) => rpc.sendRawTransaction(txHex));
  const [hash] = await rpc.generateToAddress(1, minerAddress);
  const header = await rpc.getBlockHeader(hash);
  if (header.nTx !== TRANSACTIONS + 1) throw new Error(`block holds ${header.nTx} transactions, expected ${TRANSACTIONS + 1}`);
  return { height: header.height, hash, destinations };
}

/** One full watcher pass over the block: fetch, parse, look up every output and input. */
async function timeWatcher(rpc: CoreRpcClient, height: number, watched: string[]): Promise<{ ms: number; lockups: number }> {
  const watcher = new ChainWatcher({
    chain: 'BTC',
    rpc,
    codec: bitcoinCodec,
    checkpoints: new MemoryCheckpointStore(),
    startHeight: height,
    mempool: false,
    logger: silentLogger,
  });
  for (const script of watched) watcher.watchScript(script);
  let lockups = 0;
  watcher.on('lockup', () => void lockups++);
  const start = performance.now();
  await watcher.sync();
  const ms = performance.now() - start;
  if (watcher.tip?.height !== height) throw new Error('the watcher did not process the block');
  return { ms, lockups };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (ms: number) => ms.toFixed(1) + ' ms';

export async function benchWatcher(): Promise<string[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'ferry-bench-watcher-'));
  const devnet = await startBitcoinDevnet({ dataDir, port: 0, fund: true });
  try {
    const rpc = new CoreRpcClient({ url: devnet.rpcUrl, user: devnet.rpcUser, password: devnet.rpcPassword });
    const minerAddress = await rpc.wallet(devnet.wallets.operator).getNewAddress();
    const built = performance.now();
    const block = await buildBigBlock(rpc, devnet.wallets.user, minerAddress);
    const buildMs = performance.now() - built;
    const blockHex = await rpc.getBlockHex(block.hash);

    const many = Array.from({ length: WATCHED - MATCHING }, randomScriptHex);
    many.push(...block.destinations.slice(0, MATCHING));

    const runs: Record<'none' | 'many', number[]> = { none: [], many: [] };
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const none = await timeWatcher(rpc, block.height, []);
      const lots = await timeWatcher(rpc, block.height, many);
      if (none.lockups !== 0 || lots.lockups !== MATCHING) {
        throw new Error(`found ${none.lockups} / ${lots.lockups} lockups, expected 0 / ${MATCHING}`);
      }
      if (i >= WARMUP) {
        runs.none.push(none.ms);
        runs.many.push(lots.ms);
      }
    }

    // The same work without the RPC round trips: parsing plus one index lookup per output.
    const parseRuns: Record<'none' | 'many', number[]> = { none: [], many: [] };
    const manyIndex = new WatchIndex();
    for (const script of many) manyIndex.watchScript(script);
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (const [name, index] of [['none', new WatchIndex()], ['many', manyIndex]] as const) {
        const start = performance.now();
        const { transactions } = parseBlock(blockHex);
        const hits = findLockups(transactions, index, bitcoinCodec).length + findSpends(transactions, index).length;
        if (i >= WARMUP) parseRuns[name].push(performance.now() - start);
        if (hits !== (name === 'many' ? MATCHING : 0)) throw new Error('parse-only pass found the wrong outputs');
      }
    }

    const none = median(runs.none);
    const lots = median(runs.many);
    return [
      `block ${block.height}: ${TRANSACTIONS + 1} transactions, ${blockHex.length / 2} bytes (built in ${(buildMs / 1000).toFixed(1)} s)`,
      `watcher, 0 watched scripts:       median ${fmt(none)} (min ${fmt(Math.min(...runs.none))}, ${RUNS} runs after ${WARMUP} warm-up)`,
      `watcher, ${WATCHED.toLocaleString('en')} watched scripts: median ${fmt(lots)} (min ${fmt(Math.min(...runs.many))}), ${MATCHING} lockups found`,
      `ratio 100,000 / 0 watched: ${(lots / none).toFixed(2)}x (target < 2x)`,
      `parse + index lookups only (no RPC), 0 vs 100,000 watched: ${fmt(median(parseRuns.none))} vs ${fmt(median(parseRuns.many))}`,
    ];
  } finally {
    await devnet.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  for (const line of await benchWatcher()) console.log(line);
}
