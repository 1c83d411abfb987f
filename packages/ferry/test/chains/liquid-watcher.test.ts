// The chain watcher on the devnet's Elements node through Liquid's codec: lockups to a watched script are unblinded
// with the key derived for that script, reported with their L-BTC amount, or with a refusal when they hold another
// asset or were blinded to a key the swap does not have; explicit payments read in the clear; reorgs reported.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { MemoryCheckpointStore } from '../../src/chains/checkpoint.ts';
import { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import type { LockupEvent, ReorgEvent } from '@ferry/sdk/chains/events.js';
import { blindingKeyForScript } from '@ferry/sdk/chains/liquid/blinding.js';
import { liquidCodec } from '../../src/chains/liquid/codec.ts';
import { confidentialAddress, policyAsset, unconfidentialAddress } from '@ferry/sdk/chains/liquid/network.js';
import { unblindLockup } from '@ferry/sdk/chains/liquid/spends.js';
import { initLiquid } from '@ferry/sdk/chains/liquid/zkp.js';
import { silentLogger } from '../../src/chains/logger.ts';
import { ChainWatcher } from '../../src/chains/watcher/watcher.ts';
import { startElementsDevnet, type ElementsDevnet } from '@ferry/devnet/elements/index.js';

let dataDir: string;
let devnet: ElementsDevnet;
let rpc: CoreRpcClient;
let user: CoreRpcClient;
let watcher: ChainWatcher;
const lockups: LockupEvent[] = [];
const reorgs: ReorgEvent[] = [];
const master = randomBytes(32);
// A Taproot output script standing in for a swap lockup.
const script = Buffer.concat([Buffer.of(0x51, 0x20), Buffer.from(secp256k1.getPublicKey(randomBytes(32), true).subarray(1))]);
const address = confidentialAddress(script, blindingKeyForScript(master, script).publicKey, 'regtest');

before(async () => {
  await initLiquid();
  dataDir = await mkdtemp(join(tmpdir(), 'ferry-liquid-watcher-'));
  devnet = await startElementsDevnet({ dataDir, port: 0 });
  rpc = new CoreRpcClient({ url: devnet.rpcUrl, user: devnet.rpcUser, password: devnet.rpcPassword });
  user = rpc.wallet(devnet.wallets.user);
  const codec = liquidCodec({
    asset: policyAsset('regtest'),
    open: (output) => unblindLockup({ txid: '', vout: 0, prevout: output, blindingPrivateKey: blindingKeyForScript(master, output.script).privateKey }),
  });
  watcher = new ChainWatcher({ chain: 'L-BTC', rpc, codec, checkpoints: new MemoryCheckpointStore(), pollIntervalMs: 60_000, logger: silentLogger });
  watcher.subscribe({ lockup: (event) => void lockups.push(event), reorg: (event) => void reorgs.push(event) });
  await watcher.sync();
  watcher.watchScript(script.toString('hex'));
});

after(async () => {
  await watcher?.stop();
  await devnet?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const mine = async () => (await rpc.generateToAddress(1, await user.getNewAddress()))[0];

/** The lockups the watcher reports for `txid` after one round. */
async function reported(txid: string): Promise<LockupEvent[]> {
  await watcher.sync();
  return lockups.filter((event) => event.txid === txid);
}

test('a blinded L-BTC lockup is reported with its unblinded amount, in the mempool and confirmed', async () => {
  const txid = await user.sendToAddress(address, 0.0005);
  const [seen] = await reported(txid);
  assert.equal(seen.value, 50_000n);
  assert.equal(seen.refusal, undefined);
  assert.equal(seen.confirmations, 0);
  assert.equal(seen.scriptHex, script.toString('hex'));
  const block = await mine();
  const confirmed = (await reported(txid)).find((event) => event.confirmations === 1);
  assert.equal(confirmed?.blockHash, block, 'reported again in its block');
  assert.equal(confirmed?.value, 50_000n);
});

test('a lockup of another asset is reported with a refusal naming the asset', async () => {
  const { asset } = await user.call<{ asset: string }>('issueasset', [1, 0]);
  await mine();
  const txid = await user.call<string>('sendtoaddress', [address, 0.25, '', '', false, null, null, null, null, asset]);
  const [seen] = await reported(txid);
  assert.equal(seen.refusal, `the lockup is of asset ${asset}, not L-BTC`);
  assert.equal(seen.value, 25_000_000n, 'its amount, unblinded, in that asset');
});

test('a lockup blinded to another key cannot be opened and is refused', async () => {
  const elsewhere = confidentialAddress(script, secp256k1.getPublicKey(randomBytes(32), true), 'regtest');
  const txid = await user.sendToAddress(elsewhere, 0.0005);
  const [seen] = await reported(txid);
  assert.equal(seen.refusal, "the lockup output cannot be unblinded with the swap's blinding key");
  assert.equal(seen.value, 0n);
});

test('an explicit (unconfidential) L-BTC payment is read in the clear', async () => {
  const txid = await user.sendToAddress(unconfidentialAddress(script, 'regtest'), 0.0007);
  const [seen] = await reported(txid);
  assert.equal(seen.value, 70_000n);
  assert.equal(seen.refusal, undefined);
});

test('a block taken back is reported as a reorg, and its lockup is reported again when mined anew', async () => {
  const txid = await user.sendToAddress(address, 0.0003);
  await mine();
  await reported(txid);
  const height = await rpc.getBlockCount();
  await rpc.call('invalidateblock', [await rpc.getBlockHash(height)]);
  await mine();
  await mine();
  const before = lockups.length;
  await watcher.sync();
  assert.equal(reorgs.at(-1)?.forkHeight, height - 1);
  const again = lockups.slice(before).filter((event) => event.txid === txid);
  assert.ok(again.some((event) => event.confirmations === 1 && event.value === 30_000n), 'the lockup, confirmed in the new chain');
});
