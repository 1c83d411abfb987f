// Two engine instances on one database, as several Ferry processes share PostgreSQL: a cooperative claim whose
// details one instance handed out is signed on the other (the MuSig2 session lives in the database), once.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { hex } from '@scure/base';
import { BitcoinBackend } from '../../src/chains/bitcoin/backend.ts';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { ChainWatcher } from '../../src/chains/watcher/watcher.ts';
import { MemoryCheckpointStore } from '../../src/chains/checkpoint.ts';
import { silentLogger as silentWatcherLogger } from '../../src/chains/logger.ts';
import { openStorage, type Storage } from '../../src/db/index.ts';
import { SwapEngine } from '../../src/engine/index.ts';
import { aliceInvoice } from './adversarial-support.ts';
import { clientSession, findOutput, lockupOf, newKeyPair } from './client.ts';
import { startWorld, type World } from './world.ts';
import { bitcoinCodec } from '../../src/chains/bitcoin/codec.ts';

describe('two engine instances on one database', () => {
  let world: World;
  let otherStorage: Storage;
  let other: SwapEngine;

  before(async () => {
    world = await startWorld({ claimDelayMs: 60_000 });
    otherStorage = await openStorage(join(world.dataDir, 'ferry.sqlite'));
    const watcher = new ChainWatcher({ chain: 'BTC', rpc: world.node, codec: bitcoinCodec, checkpoints: new MemoryCheckpointStore(), pollIntervalMs: 50, logger: silentWatcherLogger });
    // Serves API calls only, as a second instance does: it is not started, so it follows no chain and runs no effects.
    other = new SwapEngine({
      storage: otherStorage,
      chains: new Map([['BTC', new BitcoinBackend({ symbol: 'BTC', network: 'regtest', rpc: world.operator, watcher })]]),
      lightning: new Map([['BTC', world.ferryNode]]),
      keys: world.keys,
      instanceId: 'other-instance',
    });
  });
  after(async () => {
    await world?.close();
  });

  test('claim details from one instance, the signature posted to the other: claimed once, paid to the operator', async () => {
    const client = newKeyPair();
    const { invoice } = await aliceInvoice(world, 40_000);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(client.publicKey) });
    const lockup = lockupOf(created.swapTree, created.claimPublicKey, client);
    const lockupTxid = await world.user.sendToAddress(created.address, satToBtc(created.expectedAmount!));
    await world.mine();
    await world.waitForStatus(created.id, 'transaction.claim.pending');

    const details = await other.submarineClaimDetails(created.id);
    assert.deepEqual(await world.engine.submarineClaimDetails(created.id), details, 'one session, whichever instance is asked');
    const session = clientSession(client, lockup.keys, lockup.swapTree, hex.decode(details.transactionHash));
    const signature = { pubNonce: session.pubNonce, partialSignature: session.sign(details.pubNonce) };

    const before = await world.operatorBalance();
    assert.deepEqual(await world.engine.submarineClaimSignature(created.id, signature), {});
    assert.equal((await other.status(created.id))?.status, 'transaction.claimed');
    await assert.rejects(other.submarineClaimSignature(created.id, signature), /not eligible for a cooperative claim/);
    for (let i = 0; i < 100 && (await world.storage.signingSessions.get(created.id, 'claim')) !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(await world.storage.signingSessions.get(created.id, 'claim'), undefined, 'a finished swap keeps no sealed nonce');
    const { vout } = findOutput(await world.node.getRawTransactionHex(lockupTxid), lockup.script);
    assert.equal(await world.node.getTxOut(lockupTxid, vout, true), null, 'the lockup is spent');
    await world.mine();
    const gained = (await world.operatorBalance()) - before;
    assert.ok(gained > BigInt(created.expectedAmount! - 1_000) && gained < BigInt(created.expectedAmount!), `gained ${gained}`);
  });
});
