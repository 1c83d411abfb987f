// The 'unconfirmed' operator alert on the real devnet: Ferry's claim of a submarine lockup is kept unconfirmed by
// empty blocks (generateblock, no fee bumps); once it has waited alertUnconfirmedAfterBlocks blocks the engine
// raises the alert for that swap's claim, once, and clears it when a block confirms the claim.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import type { AlertInput, AlertKind, OperatorAlerts } from '../../src/alerts/index.ts';
import { spendP2wpkh } from '../helpers/htlc.ts';
import { aliceInvoice, fundedCoin, mineEmpty as mineEmptyBlocks, waitFor } from './adversarial-support.ts';
import { lockupOf, newKeyPair } from './client.ts';
import { startWorld, type World } from './world.ts';

const TARGET = 2;

/** What the engine told the operator, in order (the database-backed sink is tested in test/db/alerts.test.ts). */
class Told implements OperatorAlerts {
  readonly raised: AlertInput[] = [];
  readonly cleared: string[] = [];
  async raise(alert: AlertInput): Promise<void> {
    this.raised.push(alert);
  }
  async clear(kind: AlertKind, key: string): Promise<void> {
    this.cleared.push(`${kind} ${key}`);
  }
}

let world: World;
const told = new Told();
let burn: string;

before(async () => {
  world = await startWorld({ claimDelayMs: 0, feeBumpAfterBlocks: 0, alertUnconfirmedAfterBlocks: TARGET, alerts: told });
  burn = await world.user.getNewAddress();
});
after(async () => {
  await world?.close();
});

const inMempool = async (txid: string) => (await world.node.getRawMempool()).includes(txid);
const unconfirmedOf = (id: string) => told.raised.filter((alert) => alert.kind === 'unconfirmed' && alert.swapId === id);

test("Ferry's claim unconfirmed past the target raises 'unconfirmed' for its claim; confirmed, the alert is cleared", async () => {
  const client = newKeyPair();
  const { invoice } = await aliceInvoice(world, 100_000);
  const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(client.publicKey) });
  const coin = await fundedCoin(world, created.expectedAmount! + 10_000);
  const script = lockupOf(created.swapTree, created.claimPublicKey, client).script;
  const lockup = spendP2wpkh(coin, { destinationScript: script, outputAmount: BigInt(created.expectedAmount!) });
  await world.node.sendRawTransaction(lockup.hex);
  await world.mine();
  await world.waitForStatus(created.id, 'transaction.claimed');
  const claim = (await world.storage.swaps.get(created.id))!.data.claimTransaction as { txid: string };
  assert.ok(await inMempool(claim.txid));

  await mineEmptyBlocks(world, burn, TARGET - 1);
  assert.ok(await inMempool(claim.txid), 'still unconfirmed');
  assert.deepEqual(unconfirmedOf(created.id), [], 'not before the target');
  await mineEmptyBlocks(world, burn, 1);
  await waitFor(async () => unconfirmedOf(created.id).length > 0, 60_000);
  await mineEmptyBlocks(world, burn, 1);
  const [alert, ...again] = unconfirmedOf(created.id);
  assert.equal(alert.key, `${created.id}:claim`);
  assert.equal(alert.severity, 'warn');
  assert.equal(alert.chain, 'BTC');
  assert.equal(alert.details?.txid, claim.txid);
  assert.ok(Number(alert.details?.waitedBlocks) >= TARGET);
  // seen again at the next block, it is raised again under the same key (one alert: the stores keep one per key)
  assert.ok(again.every((later) => later.key === alert.key));

  await world.mine();
  assert.ok((await world.node.getRawTransaction(claim.txid)).blockhash, 'the claim confirmed');
  await waitFor(async () => told.cleared.includes(`unconfirmed ${created.id}:claim`), 60_000);
});
