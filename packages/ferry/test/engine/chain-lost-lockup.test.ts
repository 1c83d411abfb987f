// Issue 23's scenario on the real devnet: a chain swap BTC → L-BTC of 100,000 sat whose user lockup confirmed,
// Ferry locked its L-BTC and that confirmed; then the user's lockup is reorganised away (invalidateblock of the
// block that made its coin final) and its coin double spent. The swap fails (transaction.failed, pushed) within a
// block of the reorg, no effect is left retrying, and the operator is told (lockupLost). Then either nobody claims
// and Ferry refunds its L-BTC at its timeout (back in its wallet), or the user claims Ferry's L-BTC with the
// preimage and the operator is told the coins are lost (fundsLost) while the swap stays failed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { findOutput } from '@ferry/sdk/chains/bitcoin/spends.js';
import { createLogger } from '../../src/log/index.ts';
import type { AlertInput, AlertKind, OperatorAlerts } from '../../src/alerts/index.ts';
import { addressOf, p2wpkhScript, spendP2wpkh, strangerKey, walletKey } from '../helpers/htlc.ts';
import { createBtcToLbtc, scriptPathClaimOf, sleep, startChainWorld, untilStatus, untilSwap, type ChainWorld, type ClientSwap } from './chain-support.ts';

let world: ChainWorld;
const raised: AlertInput[] = [];
const cleared: { kind: AlertKind; key: string }[] = [];

before(async () => {
  world = await startChainWorld('chain-lost-lockup');
  // The operator's alerts, as the engine raises them (the engine reads ctx.alerts at each raise).
  const recorder: OperatorAlerts = {
    raise: async (alert) => void raised.push(alert),
    clear: async (kind, key) => void cleared.push({ kind, key }),
  };
  const ctx = (world.ferry.swaps as unknown as { ctx: { alerts: OperatorAlerts; logger: unknown } }).ctx;
  ctx.alerts = recorder;
  if (process.env.FERRY_TEST_DEBUG) ctx.logger = createLogger({ level: 'info', write: (line) => process.stderr.write(line + '\n') });
});

after(async () => {
  await world?.close();
});

const stored = async (id: string) => (await world.ferry.storage.swaps.get(id))!;
const alertsOf = (id: string, kind: AlertKind) => raised.filter((alert) => alert.swapId === id && alert.kind === kind);

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * The scenario up to the loss: the user's lockup (spending a coin whose funding transaction has nLockTime = the
 * tip, so it leaves the node with the block) confirmed, Ferry's L-BTC lockup sent (and confirmed unless
 * `serverConfirmed` is false); then the funding block is invalidated and the coin double spent elsewhere.
 */
async function lostAfterFerryLocked(serverConfirmed: boolean) {
  const swap = await createBtcToLbtc(world, 100_000);
  const pushed: string[] = [];
  const stop = world.ferry.swaps!.onStatus((id, body) => void (id === swap.id && pushed.push(body.status)));
  const coinScript = p2wpkhScript(walletKey.publicKey);
  const fundingTxid = await world.bitcoinUser.sendToAddress(addressOf(coinScript), 0.002);
  const fundingHex = await world.bitcoin.getRawTransactionHex(fundingTxid);
  const { locktime } = await world.btc.transaction(fundingTxid);
  await world.btc.mine();
  const found = findOutput(fundingHex, coinScript)!;
  const coin = { txid: fundingTxid, vout: found.vout, value: found.value, script: coinScript };
  const lockup = spendP2wpkh(coin, { destinationScript: scriptOf('regtest', swap.lockupDetails.lockupAddress), outputAmount: BigInt(swap.lockupDetails.amount) });
  await world.bitcoin.sendRawTransaction(lockup.hex);
  await world.btc.mine();
  const locked = await untilStatus(world, swap.id, 'transaction.server.mempool', 120_000);
  if (serverConfirmed) {
    await world.lbtc.mine();
    await untilStatus(world, swap.id, 'transaction.server.confirmed', 120_000);
  }
  const serverLockup = locked.serverLockup!;

  // The reorg: the funding block goes, the coin's transaction is not final without it, the lockup goes with it.
  const reorgHeight = await world.btc.height();
  await world.bitcoin.invalidateBlock(await world.bitcoin.getBlockHash(locktime));
  assert.equal((await world.bitcoin.getRawMempool()).includes(lockup.txid), false, 'the lockup left the node');
  const failed = await untilStatus(world, swap.id, 'transaction.failed', 120_000);
  assert.equal(failed.lockupLost?.txid, lockup.txid);
  assert.equal(failed.lockupLost?.reason, 'vanished');
  assert.ok((await world.btc.height()) <= reorgHeight, 'failed within a block of the reorg');

  // The user double spends the coin.
  await world.btc.mineTo(locktime);
  await world.bitcoin.sendRawTransaction(fundingHex);
  await world.btc.mine();
  const elsewhere = spendP2wpkh(coin, { destinationScript: p2wpkhScript(strangerKey.publicKey), outputAmount: found.value - 1_000n });
  await world.bitcoin.sendRawTransaction(elsewhere.hex);
  await world.btc.mine();
  const doubleSpent = await untilSwap(world, swap.id, (status, data) => status === 'transaction.failed' && data.lockupLost?.reason === 'doubleSpent', 'lost: double spent', 120_000);
  assert.equal(doubleSpent.failureReason, 'the lockup transaction was double spent after Ferry acted on it');

  await until('the lockupLost alert', () => alertsOf(swap.id, 'lockupLost').length === 1);
  const [alert] = alertsOf(swap.id, 'lockupLost');
  assert.equal(alert.severity, 'error');
  assert.equal(alert.amount, serverLockup.value, "Ferry's lockup is the money at risk");
  await until('no effect pending', async () => (await world.ferry.storage.effects.listPending({ swapId: swap.id })).length === 0);
  const statusBody = await (await fetch(`${world.apiUrl}/v2/swap/${swap.id}`)).json();
  assert.equal(statusBody.status, 'transaction.failed');
  return { swap, pushed, stop, serverLockup };
}

async function nobodyClaims(serverConfirmed: boolean) {
  const operatorBefore = await world.lbtc.balance(world.lbtc.operator);
  const lbtcFrom = (await world.lbtc.height()) + 1;
  const { swap, pushed, stop, serverLockup } = await lostAfterFerryLocked(serverConfirmed);
  assert.ok(pushed.includes('transaction.failed'), 'transaction.failed was pushed to subscribers');

  await world.lbtc.mineTo(swap.claimDetails.timeoutBlockHeight);
  const refunded = await untilStatus(world, swap.id, 'transaction.refunded', 180_000);
  await world.lbtc.mine();
  await untilSwap(world, swap.id, (_, data) => data.refundConfirmed === true, 'refund confirmed', 120_000);
  stop();
  const spends = await world.lbtc.spendsOf(serverLockup.txid, serverLockup.vout, lbtcFrom);
  assert.deepEqual(spends.map((s) => s.txid), [refunded.refundTransaction!.txid], "Ferry's lockup is spent once, by its refund");
  const fees = (await world.lbtc.fee(serverLockup.txid)) + (await world.lbtc.fee(refunded.refundTransaction!.txid));
  assert.equal(await world.lbtc.balance(world.lbtc.operator), operatorBefore - fees, "Ferry's wallet has its L-BTC back, less the two fees");
  assert.deepEqual(alertsOf(swap.id, 'fundsLost'), [], 'no coins lost');
  assert.equal((await world.ferry.storage.effects.listPending({ swapId: swap.id })).length, 0);
}

async function userClaims(serverConfirmed: boolean) {
  const { swap, stop, serverLockup } = await lostAfterFerryLocked(serverConfirmed);
  const userBefore = await world.lbtc.balance(world.lbtc.user);
  const claim = await scriptPathClaimOf(world, swap as ClientSwap, serverLockup.txid);
  await world.elements.sendRawTransaction(claim.hex);
  await world.lbtc.mine();
  await until('the fundsLost alert', () => alertsOf(swap.id, 'fundsLost').length === 1);
  const [lostFunds] = alertsOf(swap.id, 'fundsLost');
  assert.equal(lostFunds.severity, 'error');
  assert.equal(lostFunds.amount, serverLockup.value);
  await sleep(1_000);
  stop();
  const final = await stored(swap.id);
  assert.equal(final.status, 'transaction.failed', 'the swap stays failed');
  assert.equal(typeof final.data.preimage, 'string', 'the preimage is kept, should the lockup come back');
  assert.ok((await world.lbtc.balance(world.lbtc.user)) > userBefore, "the user has Ferry's L-BTC");
  assert.equal((await world.ferry.storage.effects.listPending({ swapId: swap.id })).length, 0, 'no effect is left retrying');
}

test("the user's lockup is lost after Ferry's lockup confirmed; nobody claims: transaction.failed at once, Ferry refunds its L-BTC at its timeout", () => nobodyClaims(true));

test("the user's lockup is lost after Ferry's lockup confirmed; the user claims Ferry's L-BTC: fundsLost, the swap stays failed", () => userClaims(true));

test("the user's lockup is lost while Ferry's lockup is in the mempool (transaction.server.mempool): failed, and Ferry refunds at its timeout", () => nobodyClaims(false));
