// Audit: a lockup is bound to the script and amount Ferry advertised for that swap (a class of bug the reference
// backend fixed in 2026). On the real devnet: coins paying another swap's script, this swap's script with less
// (also split over two outputs that add up), or the right amount to the same 32-byte program under another
// witness version are never taken as this swap's lockup; no invoice is paid for them, and a correct lockup
// afterwards is paid exactly once.
// LND only, not in the Lightning matrix: what it checks happens on chain or in the API, not in Ferry's Lightning node.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { submarineData } from '../../src/engine/data.ts';
import type { KeyPair } from '../helpers/htlc.ts';
import { aliceInvoice, aliceInvoiceState, fundedCoin, sleep, spendToOutputs } from './adversarial-support.ts';
import { lockupOf, newKeyPair } from './client.ts';
import { startWorld, type World } from './world.ts';

describe('audit: lockups bound to the advertised script and amount', () => {
  let world: World;
  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  async function submarine(owner: KeyPair, sat: number) {
    const { invoice, hash } = await aliceInvoice(world, sat);
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(owner.publicKey) });
    return { created, hash, lockup: lockupOf(created.swapTree, created.claimPublicKey, owner) };
  }

  async function pay(outputs: { script: Uint8Array; amount: number }[]) {
    const coin = await fundedCoin(world, outputs.reduce((sum, output) => sum + output.amount, 0) + 3_000);
    const tx = spendToOutputs(coin, outputs);
    await world.node.sendRawTransaction(tx.hex);
    await world.mine();
    return tx;
  }

  async function settled(id: string) {
    await world.engine.whenIdle(id);
    await sleep(300);
    return (await world.engine.status(id))?.status;
  }

  test("another swap's script: counted for that swap only (and short there), never for this one", async () => {
    const owner = newKeyPair();
    const a = await submarine(owner, 30_000);
    const b = await submarine(owner, 40_000);
    await pay([{ script: b.lockup.script, amount: a.created.expectedAmount! }]);
    const failed = await world.waitForStatus(b.created.id, 'transaction.lockupFailed');
    assert.match(failed.failureReason!, /is less than expected/);
    assert.equal(await settled(a.created.id), 'invoice.set');
    assert.equal(await world.ferryNode.lookupPayment(a.hash), undefined);
    assert.equal(await world.ferryNode.lookupPayment(b.hash), undefined);
  });

  test('the same 32-byte program as witness v0, then the right lockup: only the right one is taken, paid once', async () => {
    const owner = newKeyPair();
    const a = await submarine(owner, 31_000);
    const expected = a.created.expectedAmount!;
    assert.equal(a.lockup.script[0], 0x51, 'a taproot output: OP_1 <32 bytes>');
    const v0 = Uint8Array.from([0x00, ...a.lockup.script.slice(1)]); // OP_0 <same 32 bytes>: a P2WSH
    await pay([{ script: v0, amount: expected }]);
    assert.equal(await settled(a.created.id), 'invoice.set', 'a v0 output is not the taproot lockup');
    assert.equal(await world.ferryNode.lookupPayment(a.hash), undefined);

    const right = await pay([{ script: a.lockup.script, amount: expected }]);
    await world.waitForStatus(a.created.id, 'transaction.claim.pending');
    assert.equal(submarineData((await world.storage.swaps.get(a.created.id))!).lockup!.txid, right.txid);
    assert.equal((await aliceInvoiceState(world, a.hash)).amt_paid_sat, '31000');
  });

  test('two outputs to the script that only together reach the amount: refused, never paid', async () => {
    const owner = newKeyPair();
    const a = await submarine(owner, 32_000);
    const half = Math.ceil(a.created.expectedAmount! / 2);
    await pay([
      { script: a.lockup.script, amount: half },
      { script: a.lockup.script, amount: half },
    ]);
    const failed = await world.waitForStatus(a.created.id, 'transaction.lockupFailed');
    assert.deepEqual(failed.failureDetails, { expected: a.created.expectedAmount, actual: half });
    await sleep(300);
    assert.equal(await world.ferryNode.lookupPayment(a.hash), undefined);
    assert.equal((await aliceInvoiceState(world, a.hash)).state, 'OPEN');
  });
});
