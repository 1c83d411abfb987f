// The 'unconfirmed' operator alert on a contract chain (RBTC on the devnet's anvil): Ferry's lock of a reverse swap is
// kept out of blocks (automine off, and each next block's base fee set above the lock's fee cap), so it waits in the
// node's pool while blocks are mined (anvil then drops it, as a node evicts an underpriced transaction); once it has
// waited alertUnconfirmedAfterBlocks blocks the engine raises the alert for that swap's lockup, once. When a block
// has room for it again, Ferry sends the same signed lock again (it is never sent twice: one lock on chain, Ferry's
// account paid once), it is mined, and the alert is cleared. On a contract chain every transaction
// of Ferry's account queues behind the one before, so a stuck one holds up every lock, claim and refund after it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sha256, toQuantity } from 'ethers';
import type { AlertInput, AlertKind, OperatorAlerts } from '../../src/alerts/index.ts';
import { DEFAULT_BTC_PAIR, type PairConfig } from '../../src/swaps/pairs.ts';
import { waitFor } from './adversarial-support.ts';
import { startWorld, type World } from './world.ts';

const TARGET = 2;
/** A failure ceiling only: each wait ends on the state it waits for. */
const CEILING_MS = 120_000;
const RBTC_PAIR: PairConfig = { ...DEFAULT_BTC_PAIR, id: 'RBTC/BTC', base: 'RBTC', limits: { ...DEFAULT_BTC_PAIR.limits, maximalZeroConf: 0 } };

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

before(async () => {
  world = await startWorld({ pairs: [DEFAULT_BTC_PAIR, RBTC_PAIR], evm: {}, alertUnconfirmedAfterBlocks: TARGET, alerts: told });
});
after(async () => {
  await world?.devnet.evm.provider.send('evm_setAutomine', [true]).catch(() => {});
  await world?.close();
});

const anvil = (method: string, params: unknown[] = []) => world.devnet.evm.provider.send(method, params);
const unconfirmedOf = (id: string) => told.raised.filter((alert) => alert.kind === 'unconfirmed' && alert.swapId === id);

/** Mines one block the pending lock cannot enter (its base fee above the lock's cap), then lets Ferry see it. */
async function mineWithout(maxFeePerGas: bigint): Promise<void> {
  await anvil('anvil_setNextBlockBaseFeePerGas', [toQuantity(maxFeePerGas * 2n)]);
  await anvil('evm_mine');
  await world.evm!.chain.sync();
}

test("Ferry's RBTC lock unmined past the target raises 'unconfirmed' for its lockup; dropped by the node, it is sent again unchanged; mined, the alert is cleared", async () => {
  await anvil('evm_setAutomine', [false]);
  const ferry = world.evm!.backend.signer.address;
  const [nonceBefore, balanceBefore] = [await world.devnet.evm.provider.getTransactionCount(ferry), await world.evm!.backend.balance()];
  const preimage = randomBytes(32);
  const created = await world.engine.createReverse({ from: 'BTC', to: 'RBTC', preimageHash: sha256(preimage).slice(2), claimAddress: world.evm!.user.address, invoiceAmount: 60_000 });
  world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 }).catch(() => {}); // held; fails when Ferry stops
  // The payment is held: Ferry sends its lock, which waits in anvil's pool.
  await waitFor(async () => {
    await world.engine.pollInvoices();
    return world.evm!.chain.pendingTransactions().length > 0;
  }, CEILING_MS);
  const [lock] = world.evm!.chain.pendingTransactions();
  assert.equal(lock.kind, 'lockup');
  const sent = (await world.devnet.evm.provider.getTransaction(lock.txHash))!;
  assert.ok(sent.maxFeePerGas !== null);

  for (let block = 1; block < TARGET; block++) await mineWithout(sent.maxFeePerGas!);
  assert.equal(await world.devnet.evm.provider.getTransactionReceipt(lock.txHash), null, 'still unmined');
  assert.deepEqual(unconfirmedOf(created.id), [], 'not before the target');
  await mineWithout(sent.maxFeePerGas!);
  await waitFor(async () => unconfirmedOf(created.id).length > 0, CEILING_MS);
  const [alert] = unconfirmedOf(created.id);
  assert.equal(alert.key, `${created.id}:lockup`);
  assert.equal(alert.severity, 'warn');
  assert.equal(alert.chain, 'RBTC');
  assert.deepEqual(alert.details, { txid: lock.txHash, transaction: 'lockup', waitedBlocks: TARGET, targetBlocks: TARGET });
  await mineWithout(sent.maxFeePerGas!);
  assert.equal(unconfirmedOf(created.id).length, 1, 'raised once');

  // A block with room for it: mined, and the next look clears the alert.
  // anvil dropped the lock from its pool once a block's base fee passed its cap (a node evicting an underpriced
  // transaction); Ferry's tries to send it again were refused while the base fee stayed above the cap. A block with
  // room for it: at that block Ferry sends the same signed lock again, and the next block mines it.
  assert.equal(await anvil('eth_getTransactionByHash', [lock.txHash]), null, 'dropped by the node');
  await anvil('anvil_setNextBlockBaseFeePerGas', [toQuantity(1n)]);
  await anvil('evm_mine');
  await world.evm!.chain.sync();
  await waitFor(async () => (await anvil('eth_getTransactionByHash', [lock.txHash])) !== null, CEILING_MS);
  await anvil('evm_mine');
  await waitFor(async () => (await world.devnet.evm.provider.getTransactionReceipt(lock.txHash)) !== null, CEILING_MS);
  const receipt = (await world.devnet.evm.provider.getTransactionReceipt(lock.txHash))!;
  assert.equal(receipt.status, 1);
  assert.equal(await world.devnet.evm.provider.getTransactionCount(ferry), nonceBefore + 1, "one transaction of Ferry's account");
  assert.equal(await world.evm!.backend.balance(), balanceBefore - sent.value - receipt.gasUsed * receipt.gasPrice, 'Ferry paid for one lock');
  await waitFor(async () => world.evm!.chain.pendingTransactions().length === 0, CEILING_MS);
  await anvil('evm_mine');
  await world.evm!.chain.sync();
  await waitFor(async () => told.cleared.includes(`unconfirmed ${created.id}:lockup`), CEILING_MS);
});
