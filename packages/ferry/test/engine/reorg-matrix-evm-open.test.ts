// Reorgs of the EVM chain after Ferry acted that legs/contract-reorg.ts once left open, asserting who ends with the
// coins:
// - a reverse swap's lock and the client's claim both taken back after the invoice settled: Ferry locks again, so the
//   client who paid can claim; the same two mined again on the new chain: Ferry does not lock a second time;
// - a submarine swap's claim of Ferry's taken back (the user's lock stays): Ferry claims again, so the user cannot
//   refund what Ferry paid the invoice for after the timelock;
// - a reverse swap's refund of Ferry's taken back after it cancelled the held payment: Ferry refunds again, so the
//   client, who holds the preimage, cannot claim the lock while alice got her payment back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rest } from '../lightning/helpers.ts';
import { api, untilStatus } from './chain-support.ts';
import { WEI_PER_UNIT, gasCost, type LockValues } from './evm-chain-support.ts';
import { claimsOf, lockedReverse, lockupsOf, provider, refundsOf, reorgTo, snapshot, status, until, useEvmReorgWorld } from './reorg-matrix-evm-support.ts';

const m = useEvmReorgWorld('reorg-matrix-evm-open');

test(
  "reverse RBTC: Ferry's lock and the client's claim both taken back after the invoice settled: Ferry locks again, the client's claim takes it",
  async () => {
    const { id, preimage, values, pay } = await lockedReverse(55_000);
    const beforeLock = await snapshot();
    const payment = pay();
    await untilStatus(m.world(), id, 'transaction.confirmed');
    const [lost] = await lockupsOf(values);
    await m.evm().claim(preimage, values);
    await untilStatus(m.world(), id, 'invoice.settled');
    assert.equal((await payment).status, 'SUCCEEDED');
    await m.evm().mine(2);
    await m.evm().ferry.follower.sync();

    await reorgTo(beforeLock, lost.blockNumber + 3);
    assert.deepEqual(await claimsOf(values), [], 'the claim is gone with the lock');
    await until(() => m.evm().locked(values), 'locked again', 10_000);
    const userBefore = await m.evm().balance();
    const again = await m.evm().claim(preimage, values);
    assert.equal(await m.evm().balance(), userBefore + values.amount - gasCost(again), 'the client has the RBTC it paid for');
    assert.equal((await lockupsOf(values)).length, 1, 'Ferry locked once on the new chain');
    assert.equal(await status(id), 'invoice.settled');
  },
);

test("reverse RBTC: Ferry's lock and the client's claim taken back and mined again: Ferry does not lock a second time", async () => {
  const { id, preimage, values, pay } = await lockedReverse(50_000);
  const beforeLock = await snapshot();
  const payment = pay();
  await untilStatus(m.world(), id, 'transaction.confirmed');
  const [lost] = await lockupsOf(values);
  const claim = await m.evm().claim(preimage, values);
  await untilStatus(m.world(), id, 'invoice.settled');
  assert.equal((await payment).status, 'SUCCEEDED');
  const raw: string[] = await Promise.all([lost.transactionHash, claim.hash].map((hash) => provider().send('eth_getRawTransactionByHash', [hash])));
  await m.evm().mine(2);
  await m.evm().ferry.follower.sync();

  // The reorg: the blocks leave, the same two transactions are mined again on the new chain (as a real chain does
  // with the transactions of the blocks it drops), then Ferry's follower sees it.
  assert.equal(await provider().send('evm_revert', [beforeLock]), true);
  for (const transaction of raw) await provider().send('eth_sendRawTransaction', [transaction]);
  await m.evm().mine(lost.blockNumber + 5 - (await m.evm().height()));
  await m.evm().ferry.follower.sync();
  await m.evm().ferry.follower.sync();

  assert.equal((await lockupsOf(values)).length, 1, 'Ferry locked once: its lock mined again, no second one');
  assert.equal((await claimsOf(values)).length, 1, "the client's claim mined again takes it");
  assert.equal(await m.evm().locked(values), false, 'nothing left locked for anybody to claim');
  assert.equal(await status(id), 'invoice.settled');
});

test(
  "submarine RBTC: Ferry's claim taken back (the user's lock stays): Ferry claims again before the user could refund",
  async () => {
    const { body } = await rest<{ payment_request: string; r_hash: string }>(m.world().ferry.devnet!.info.lightning.alice, 'POST', '/v1/invoices', { value: 30_000, memo: 'reorg matrix' });
    const created = await api(m.world(), 'POST', '/v2/swap/submarine', { from: 'RBTC', to: 'BTC', invoice: body.payment_request });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const values: LockValues = {
      preimageHash: `0x${Buffer.from(body.r_hash, 'base64').toString('hex')}`,
      amount: BigInt(created.json.expectedAmount) * WEI_PER_UNIT,
      claimAddress: created.json.claimAddress,
      refundAddress: m.evm().wallet.address,
      timelock: created.json.timeoutBlockHeight,
    };
    await m.evm().lock(values);
    const afterLock = await snapshot();
    const lockHeight = await m.evm().height();
    await untilStatus(m.world(), created.json.id, 'transaction.claimed');
    const [claim] = await claimsOf(values);
    assert.ok(claim.blockNumber > lockHeight, "Ferry's claim came after the snapshot");
    await m.evm().mine(2);
    await m.evm().ferry.follower.sync();

    // The follower's sync in reorgTo hands Ferry the removed claim: its claim again may be mined at once.
    await reorgTo(afterLock, claim.blockNumber + 2);
    assert.equal(await provider().getBlock(claim.blockHash), null, "the claim's block left the chain");
    assert.equal((await lockupsOf(values)).length, 1, "the user's lock stands on the new chain");
    await until(async () => !(await m.evm().locked(values)), 'claimed again', 10_000);
    const claims = await claimsOf(values);
    assert.equal(claims.length, 1, 'Ferry claimed it once on the new chain');
    assert.notEqual(claims[0].blockHash, claim.blockHash, 'sent again on the new chain');
    assert.deepEqual(await refundsOf(values), [], 'the user got nothing back');
    assert.equal(await status(created.json.id), 'transaction.claimed');
  },
);

test(
  "reverse RBTC, nobody claims: Ferry's refund taken back after it cancelled the held payment: Ferry refunds again",
  async () => {
    const { id, values, pay } = await lockedReverse(60_000);
    const payment = pay();
    await untilStatus(m.world(), id, 'transaction.confirmed');
    await m.evm().mine(values.timelock - (await m.evm().height()) - 2);
    const beforeRefund = await snapshot();
    await m.evm().mine(3);
    await untilStatus(m.world(), id, 'transaction.refunded');
    assert.equal((await payment).status, 'FAILED', 'alice got her payment back');
    assert.equal(await m.evm().locked(values), false, 'refunded');
    const [lost] = await refundsOf(values);
    const refundHeight = await m.evm().height();
    await m.evm().mine(2);
    await m.evm().ferry.follower.sync();

    // The follower's sync in reorgTo hands Ferry the removed refund: its refund again may be mined at once (the
    // same call from the same nonce, so often the same transaction hash, in another block).
    await reorgTo(beforeRefund, refundHeight + 2);
    assert.equal(await provider().getBlock(lost.blockHash), null, "the refund's block left the chain");
    await until(async () => !(await m.evm().locked(values)), 'refunded again', 10_000);
    const refunds = await refundsOf(values);
    assert.equal(refunds.length, 1, 'Ferry refunded it once on the new chain');
    assert.notEqual(refunds[0].blockHash, lost.blockHash, 'sent again on the new chain');
    assert.deepEqual(await claimsOf(values), [], 'the client did not claim what alice got back');
    assert.equal(await status(id), 'transaction.refunded');
  },
);
