// A power cut in the middle of a fee bump: the devnet (full RBF on) runs as its own process, Ferry as another that
// SIGKILLs itself once it has recorded the replacement of its stuck claim but before broadcasting it. Restarted, it
// finds the node still has the original claim and names it again, bumps it for real at the next block, and the swap
// ends naming the claim that confirmed; the lockup is spent once and the operator wallet credited once.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { useDevnetProcess } from '../helpers/devnet-process.ts';
import { SwapWallet } from '../helpers/swap-wallet.ts';
import { DevnetChain } from './scenarios/support/chain.ts';
import { LightningNodes } from './scenarios/support/lightning.ts';

const devnet = useDevnetProcess('ferry-bump-crash-', { FERRY_DEVNET_FULL_RBF: 'true' });
let ferryDir: string;
let configFile: string;
let info: DevnetInfo;
let chain: DevnetChain;
let lightning: LightningNodes;

before(async () => {
  await devnet.ready;
  ferryDir = join(devnet.root, 'ferry');
  mkdirSync(ferryDir);
  configFile = join(ferryDir, 'ferry.toml');
  writeFileSync(configFile, '[bitcoin]\npollIntervalMs = 150\n[liquid]\npollIntervalMs = 150\n[swap]\nclaimDelayMs = 500\nfeeBumpAfterBlocks = 1\n');
  info = devnet.info;
  chain = new DevnetChain(info);
  lightning = new LightningNodes(info);
});

const startFerryProcess = (crashAt = '') => devnet.startFerry({ FERRY_CONFIG: configFile, FERRY_DATA_DIR: ferryDir, FERRY_CRASH_AT: crashAt });

/** The swap's claim as Ferry stored it, and the versions it replaced. */
function storedClaim(id: string): { claim?: string; replaced: string[] } {
  const db = new Database(join(ferryDir, 'ferry.sqlite'), { readonly: true });
  try {
    const row = db.prepare('SELECT data FROM swaps WHERE id = ?').get(id) as { data: string };
    const data = JSON.parse(row.data) as { claimTransaction?: { txid: string }; claimReplaced?: { txid: string }[] };
    return { claim: data.claimTransaction?.txid, replaced: (data.claimReplaced ?? []).map((tx) => tx.txid) };
  } finally {
    db.close();
  }
}

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const inMempool = async (txid: string) => (await chain.rpc.getRawMempool()).includes(txid);

test('a crash between recording a bumped claim and broadcasting it: the original is named again, bumped for real, and confirms once', { timeout: 600_000 }, async () => {
  const crashing = await startFerryProcess('fee-bump.replacement-recorded');
  const first = await SwapWallet.open({ apiUrl: crashing.apiUrl, devnet: info });
  const miner = await chain.user.getNewAddress();
  const emptyBlock = () => chain.rpc.call('generateblock', [miner, []]);
  const operatorBefore = await chain.balance(chain.operator);
  const { invoice } = await lightning.addInvoice('alice', 40_000);
  const swap = await first.createSubmarine({ invoice });
  const fromHeight = (await chain.height()) + 1;
  const lockup = await first.fund(swap, swap.expectedAmount!);
  await chain.mine(1);
  await first.status.waitFor(swap.id, 'transaction.claimed');
  const original = storedClaim(swap.id).claim!;
  assert.ok(await inMempool(original), "Ferry's script-path claim waits in the mempool");

  await emptyBlock();
  await until(() => crashing.process.child.signalCode === 'SIGKILL', 'Ferry crashed at its bump');
  first.close();
  const recorded = storedClaim(swap.id);
  assert.notEqual(recorded.claim, original, 'the replacement was recorded');
  assert.deepEqual(recorded.replaced, [original]);
  assert.equal(await inMempool(recorded.claim!), false, 'but never broadcast');
  assert.ok(await inMempool(original), 'the original is still in the mempool');

  const ferry = await startFerryProcess();
  try {
    await emptyBlock();
    await until(() => storedClaim(swap.id).claim === original, 'the original named again');
    await emptyBlock();
    await until(async () => {
      const now = storedClaim(swap.id).claim!;
      return now !== original && now !== recorded.claim && (await inMempool(now));
    }, 'a new replacement broadcast');
    const replacement = storedClaim(swap.id).claim!;
    assert.equal(await inMempool(original), false, 'the original left the mempool');

    await chain.mine(1);
    const spends = await chain.spendsOf(lockup.txid, lockup.vout, fromHeight);
    assert.deepEqual(spends.map((spend) => spend.txid), [replacement], 'the lockup was claimed once, by the named claim');
    const credited = btcToSat((await chain.rpc.decodeRawTransaction(await chain.rpc.getRawTransactionHex(replacement))).vout[0].value);
    assert.equal(await chain.balance(chain.operator), operatorBefore + credited, 'the operator wallet was credited once');
  } finally {
    ferry.process.child.kill('SIGTERM');
    assert.equal(await ferry.process.exited, 0);
  }
});
