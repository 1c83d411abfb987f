// A submarine swap whose lockup leaves the chain after Ferry paid the invoice and claimed it, on the real devnet:
// the lockup (nLockTime = forkHeight, so it is not final on the shorter chain) and Ferry's claim of it leave the
// node with the block. The swap moves to transaction.lockupFailed (pushed), the operator is told (lockupLost, and
// fundsLost: the invoice is paid), no effect is left retrying. Then the coin is double spent (the loss stays), or
// the lockup comes back (lockupFound) and Ferry claims it once.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { createLogger } from '../../src/log/index.ts';
import type { AlertInput, AlertKind, OperatorAlerts } from '../../src/alerts/index.ts';
import { p2wpkhScript, spendP2wpkh, strangerKey, type FundingOutput } from '../helpers/htlc.ts';
import { aliceInvoice, aliceInvoiceState, fundedCoin, waitFor } from './adversarial-support.ts';
import { lockupOf, newKeyPair } from './client.ts';
import { startWorld, type World } from './world.ts';

describe('a submarine lockup lost after Ferry paid', () => {
  let world: World;
  const raised: AlertInput[] = [];
  const cleared: { kind: AlertKind; key: string }[] = [];
  const alerts: OperatorAlerts = {
    raise: async (alert) => void raised.push(alert),
    clear: async (kind, key) => void cleared.push({ kind, key }),
  };
  const alertsOf = (id: string, kind: AlertKind) => raised.filter((alert) => alert.swapId === id && alert.kind === kind);

  before(async () => {
    world = await startWorld({ claimDelayMs: 500, alerts, btcFeeRate: async () => 2, ...(process.env.FERRY_TEST_DEBUG && { logger: createLogger({ level: 'info', write: (line) => process.stderr.write(line + '\n') }) }) });
  });
  after(async () => {
    await world?.close();
  });

  /** Paid and claimed by Ferry (the claim in a block); then the block that made the lockup final goes. */
  async function lostAfterClaim(sat: number) {
    const { invoice, hash } = await aliceInvoice(world, sat);
    const client = newKeyPair();
    const created = await world.engine.createSubmarine({ from: 'BTC', to: 'BTC', invoice, refundPublicKey: hex.encode(client.publicKey) });
    // A coin of the lockup's amount and a small fee: a large fee would raise the node's fee estimate for Ferry's claim.
    const coin: FundingOutput = await fundedCoin(world, created.expectedAmount! + 1_000);
    await world.mine();
    const forkHeight = await world.height();
    const script = lockupOf(created.swapTree, created.claimPublicKey, client).script;
    const lockup = spendP2wpkh(coin, { destinationScript: script, outputAmount: BigInt(created.expectedAmount!), lockTime: forkHeight });
    await world.node.sendRawTransaction(lockup.hex);
    await world.mine();
    const claimed = await world.waitForStatus(created.id, 'transaction.claimed', 60_000);
    assert.equal((await aliceInvoiceState(world, hash)).state, 'SETTLED', 'Ferry paid the invoice');
    await world.mine();
    const claimTxid = (await world.storage.swaps.get(created.id))!.data.claimTransaction as { txid: string };
    assert.ok((await world.node.getRawTransaction(claimTxid.txid)).blockhash, "Ferry's claim is in a block");

    await world.node.invalidateBlock(await world.node.getBlockHash(forkHeight));
    assert.equal(await world.node.getTxOut(lockup.txid, 0, true), null, 'the lockup left the chain and the mempool');
    const failed = await world.waitForStatus(created.id, 'transaction.lockupFailed', 60_000);
    assert.equal(failed.failureReason, 'the lockup transaction left the chain after Ferry acted on it');
    assert.ok((world.published.get(created.id) ?? []).includes('transaction.lockupFailed'), 'the failed status was pushed');
    await waitFor(async () => alertsOf(created.id, 'lockupLost').length === 1 && alertsOf(created.id, 'fundsLost').length === 1, 60_000);
    assert.equal(alertsOf(created.id, 'fundsLost')[0].amount, sat, 'the invoice amount is what is lost');
    await waitFor(async () => (await world.storage.effects.listPending({ swapId: created.id })).length === 0, 60_000);
    return { id: created.id, hash, coin, forkHeight, lockup, claimed };
  }

  test('the lockup and Ferry\'s claim reorganised out, the coin double spent: transaction.lockupFailed, fundsLost, nothing paid twice', async () => {
    const { id, hash, coin, forkHeight } = await lostAfterClaim(25_000);
    await world.mine((forkHeight - (await world.height())) + 1);
    const doubleSpend = spendP2wpkh(coin, { destinationScript: p2wpkhScript(strangerKey.publicKey), fee: 500n });
    await world.node.sendRawTransaction(doubleSpend.hex);
    await world.mine();
    await waitFor(async () => ((await world.storage.swaps.get(id))!.data.lockupLost as { reason?: string } | undefined)?.reason === 'doubleSpent', 60_000);
    const swap = (await world.storage.swaps.get(id))!;
    assert.equal(swap.status, 'transaction.lockupFailed');
    assert.equal(swap.data.failureReason, 'the lockup transaction was double spent after Ferry acted on it');
    assert.equal((await aliceInvoiceState(world, hash)).amt_paid_sat, '25000', 'paid once');
    assert.equal((await world.storage.effects.listPending({ swapId: id })).length, 0, 'no effect is left retrying');
    // The user's refund is never co-signed for a swap Ferry paid.
    await assert.rejects(world.engine.submarineRefund(id, { pubNonce: '02'.padEnd(132, '0'), transaction: '00', index: 0 }));
  });

  test('the lockup comes back: lockupFound, and Ferry claims it once', async () => {
    const { id, hash, forkHeight, lockup } = await lostAfterClaim(26_000);
    await world.mine((forkHeight - (await world.height())) + 1);
    await world.node.sendRawTransaction(lockup.hex); // the user's lockup, final again, is back
    await world.mine();
    await world.waitForStatus(id, 'transaction.claimed', 60_000);
    await waitFor(async () => alertsOf(id, 'lockupFound').length === 1, 60_000);
    assert.ok(cleared.some((entry) => entry.kind === 'fundsLost' && entry.key === id), 'fundsLost is cleared');
    await world.mine();
    const spends = await world.node.getTxOut(lockup.txid, 0, true);
    assert.equal(spends, null, 'the lockup is spent');
    const claim = (await world.storage.swaps.get(id))!.data.claimTransaction as { txid: string };
    const claimTx = await world.node.getRawTransaction(claim.txid);
    assert.ok(claimTx.blockhash, "Ferry's claim of the lockup is in a block");
    assert.equal((await aliceInvoiceState(world, hash)).amt_paid_sat, '26000', 'paid once');
  });
});
