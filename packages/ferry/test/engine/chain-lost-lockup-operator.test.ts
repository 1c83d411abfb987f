// Issue 23's done-criterion end to end, through the paths an operator and a client see — no stand-in for any of them:
// a Ferry started as the other devnet tests start it, with its own StoredAlerts, metrics and a logger whose lines
// this test reads; a BTC → L-BTC chain swap of 100,000 sat at the devnet's default confirmations (1 on regtest); the
// user's lockup confirmed, Ferry's L-BTC lockup sent and confirmed; then the user's block reorganised away
// (invalidateblock of the block that made its coin final) and the coin double spent. Asserted as they happen:
// transaction.failed pushed over the v2 WebSocket with no block mined since the reorg; the `alert:` line at error in
// Ferry's log; ferry_alerts_total, ferry_alerts_active and ferry_money_at_risk_sat on GET /metrics; the alert listed
// by the real `ferry admin alerts` command pointed at Ferry's data directory; no effect pending or given up. Then,
// nobody claiming, Ferry refunds its L-BTC at its timeout: the refund effect ran once, the lockup is spent by it
// alone and the coins are back in Ferry's wallet less the two fees; the money at risk drops to 0.
// (chain-lost-lockup.test.ts covers the variants: Ferry's lockup still in the mempool, the user claiming.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { findOutput } from '@ferry/sdk/chains/bitcoin/spends.js';
import { createLogger } from '../../src/log/index.ts';
import { ferryCommand } from '../helpers/ferry-process.ts';
import { addressOf, p2wpkhScript, spendP2wpkh, strangerKey, walletKey } from '../helpers/htlc.ts';
import { createBtcToLbtc, ferryFollowed, startChainWorld, untilSwap, type ChainWorld } from './chain-support.ts';

/** A failure ceiling only: every wait below ends on the event it waits for, long before this on any machine. */
const CEILING_MS = 300_000;

/** What has been seen so far (log lines, pushed statuses); `when` resolves on the first match, past or future. */
class Seen<T> {
  readonly all: T[] = [];
  private readonly waiters: { match: (item: T) => boolean; resolve: (item: T) => void }[] = [];

  add(item: T): void {
    this.all.push(item);
    for (const waiter of [...this.waiters]) {
      if (!waiter.match(item)) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(item);
    }
  }

  when(match: (item: T) => boolean, what: string): Promise<T> {
    const seen = this.all.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`never saw ${what}`)), CEILING_MS);
      this.waiters.push({ match, resolve: (item) => (clearTimeout(timer), resolve(item)) });
    });
  }
}

interface LogLine {
  level: string;
  message: string;
  [field: string]: unknown;
}

const log = new Seen<LogLine>();
let world: ChainWorld;

before(async () => {
  const logger = createLogger({
    level: 'info',
    json: true,
    write: (line) => {
      if (process.env.FERRY_TEST_DEBUG) process.stderr.write(line + '\n');
      log.add(JSON.parse(line) as LogLine);
    },
  });
  world = await startChainWorld('chain-lost-lockup-operator', { logger });
});

after(async () => {
  await world?.close();
});

/** The statuses of one swap as a WebSocket subscriber (a wallet) receives them. */
async function subscribe(id: string): Promise<{ pushed: Seen<string>; close(): void }> {
  const pushed = new Seen<string>();
  const socket = new WebSocket(`${world.apiUrl.replace(/^http/, 'ws')}/v2/ws`);
  await once(socket, 'open');
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { event: string; args?: { id: string; status: string }[] };
    if (message.event === 'update') for (const update of message.args ?? []) if (update.id === id) pushed.add(update.status);
  });
  socket.send(JSON.stringify({ op: 'subscribe', channel: 'swap.update', args: [id] }));
  await pushed.when((status) => status === 'swap.created', 'the current status on subscribing');
  return { pushed, close: () => socket.close() };
}

/** One scrape of GET /metrics, as sample lines "name{labels}" → value. */
async function scrape(): Promise<Map<string, number>> {
  const samples = new Map<string, number>();
  for (const line of (await (await fetch(world.ferry.metricsUrl!)).text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** `ferry admin ARGS` as the operator runs it: its own process, Ferry found through its data directory. */
async function admin(...args: string[]): Promise<any> {
  const env: Record<string, string | undefined> = { ...process.env, FERRY_DATA_DIR: world.dataDir };
  delete env.FERRY_ADMIN_SOCKET;
  const { code, stdout, stderr } = await ferryCommand(env, 'admin', ...args);
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout);
}

test("issue 23: the user's lockup reorganised out and double spent after Ferry locked — failed within the block, the operator told in the log, the metrics and `ferry admin alerts`, nothing retrying; Ferry's L-BTC back at its timeout", async () => {
  const operatorBefore = await world.lbtc.balance(world.lbtc.operator);
  const lbtcFrom = (await world.lbtc.height()) + 1;
  const swap = await createBtcToLbtc(world, 100_000);
  const { pushed, close } = await subscribe(swap.id);
  try {
    // The user's lockup spends a coin whose funding transaction has nLockTime = the tip: without its block the
    // funding is not final, so the reorg below takes the lockup off the node instead of back into the mempool.
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
    // One confirmation is the devnet's default for BTC: Ferry locks its L-BTC, and it confirms.
    await pushed.when((status) => status === 'transaction.server.mempool', "Ferry's lockup");
    await world.lbtc.mine();
    await pushed.when((status) => status === 'transaction.server.confirmed', "Ferry's lockup confirmed");
    const serverLockup = (await world.ferry.storage.swaps.get(swap.id))!.data.serverLockup as { txid: string; vout: number; value: number };

    // The reorg: the funding block and every block after it go; no block is mined until the swap has failed.
    const reorgHeight = await world.btc.height();
    await world.bitcoin.invalidateBlock(await world.bitcoin.getBlockHash(locktime));
    assert.equal((await world.bitcoin.getRawMempool()).includes(lockup.txid), false, 'the lockup left the node');
    await pushed.when((status) => status === 'transaction.failed', 'transaction.failed pushed');
    assert.ok((await world.btc.height()) < reorgHeight, 'failed on the shorter chain, before any new block');
    const failed = (await world.ferry.storage.swaps.get(swap.id))!;
    assert.deepEqual({ txid: (failed.data.lockupLost as { txid: string }).txid, reason: (failed.data.lockupLost as { reason: string }).reason }, { txid: lockup.txid, reason: 'vanished' });

    // The user double spends the coin once the funding is final again.
    await world.btc.mineTo(locktime);
    await world.bitcoin.sendRawTransaction(fundingHex);
    await world.btc.mine();
    const elsewhere = spendP2wpkh(coin, { destinationScript: p2wpkhScript(strangerKey.publicKey), outputAmount: found.value - 1_000n });
    await world.bitcoin.sendRawTransaction(elsewhere.hex);
    await world.btc.mine();
    const doubleSpent = await untilSwap(world, swap.id, (status, data) => status === 'transaction.failed' && data.lockupLost?.reason === 'doubleSpent', 'lost: double spent', CEILING_MS);
    assert.equal(doubleSpent.failureReason, 'the lockup transaction was double spent after Ferry acted on it');

    // The log: one alert line at error, naming the swap, the chain of the lost lockup and Ferry's money at risk.
    const alertLine = await log.when((line) => line.kind === 'lockupLost' && line.swapId === swap.id && line.message.startsWith('alert:'), 'the lockupLost alert line');
    assert.equal(alertLine.level, 'error');
    assert.equal(alertLine.chain, 'BTC');
    assert.equal(alertLine.amount, serverLockup.value, "Ferry's lockup is the money at risk");
    assert.match(alertLine.message, new RegExp(`${lockup.txid}.*Ferry's lockup is at risk`));
    assert.equal(log.all.filter((line) => line.kind === 'lockupLost' && line.swapId === swap.id && line.message.startsWith('alert:')).length, 1, 'raised once, though the loss changed from vanished to double spent');

    // The metrics, as Prometheus scrapes them.
    const metrics = await scrape();
    assert.equal(metrics.get('ferry_alerts_total{kind="lockupLost",severity="error"}'), 1);
    assert.equal(metrics.get('ferry_alerts_active{kind="lockupLost"}'), 1);
    assert.equal(metrics.get('ferry_money_at_risk_sat{chain="L-BTC",reason="lockupLost"}'), serverLockup.value);
    assert.equal(metrics.get('ferry_money_at_risk_sat{chain="L-BTC",reason="fundsLost"}'), 0);
    assert.equal(metrics.get(`ferry_swaps_failed_total{type="chain",pair="${failed.pair}",status="transaction.failed"}`), 1);

    // `ferry admin alerts`, the operator's own command.
    const listed = (await admin('alerts')) as { kind: string; key: string; severity: string; swapId?: string; chain?: string; amount?: number; details: { lockupLost?: { txid: string } } }[];
    const lost = listed.filter((alert) => alert.kind === 'lockupLost');
    assert.deepEqual(
      lost.map(({ key, severity, swapId, chain, amount }) => ({ key, severity, swapId, chain, amount })),
      [{ key: swap.id, severity: 'error', swapId: swap.id, chain: 'BTC', amount: serverLockup.value }],
    );
    assert.equal(lost[0].details.lockupLost?.txid, lockup.txid);

    // No effect left retrying: nothing pending for the swap, nothing given up (no effectFailed alert).
    await world.ferry.swaps!.whenIdle(swap.id);
    assert.deepEqual(await world.ferry.storage.effects.listPending({ swapId: swap.id }), []);
    const shown = (await admin('swap', swap.id)) as { status: string; effects: { kind: string; state: string }[] };
    assert.equal(shown.status, 'transaction.failed');
    assert.deepEqual(shown.effects.map(({ kind, state }) => ({ kind, state })), [{ kind: 'sendLockup', state: 'done' }]);
    assert.equal(listed.some((alert) => alert.kind === 'effectFailed' && alert.swapId === swap.id), false);

    // Nobody claims: at its timeout Ferry refunds its L-BTC lockup, and the coins are back in its wallet.
    await world.lbtc.mineTo(swap.claimDetails.timeoutBlockHeight);
    await ferryFollowed(world, 'L-BTC'); // every block up to the timeout handled: work that grows with the load
    await pushed.when((status) => status === 'transaction.refunded', 'transaction.refunded pushed');
    await world.lbtc.mine();
    const refunded = await untilSwap(world, swap.id, (_, data) => data.refundConfirmed === true, 'refund confirmed', CEILING_MS);
    const refund = refunded.refundTransaction!;
    const effects = await world.ferry.storage.effects.listForSwap(swap.id);
    assert.deepEqual(effects.map(({ kind, state, attempts }) => ({ kind, state, attempts })), [
      { kind: 'sendLockup', state: 'done', attempts: 1 },
      { kind: 'refundLockup', state: 'done', attempts: 1 },
    ]);
    const spends = await world.lbtc.spendsOf(serverLockup.txid, serverLockup.vout, lbtcFrom);
    assert.deepEqual(spends.map((spend) => spend.txid), [refund.txid], "Ferry's lockup is spent once, by its refund");
    const fees = (await world.lbtc.fee(serverLockup.txid)) + (await world.lbtc.fee(refund.txid));
    assert.equal(await world.lbtc.balance(world.lbtc.operator), operatorBefore - fees, "Ferry's L-BTC wallet is back where it was, less the two fees");
    const afterRefund = await scrape();
    assert.equal(afterRefund.get('ferry_money_at_risk_sat{chain="L-BTC",reason="lockupLost"}'), 0, 'refunded: nothing at risk');
    assert.deepEqual(await world.ferry.storage.effects.listPending({ swapId: swap.id }), []);

    // The operator, having read the story, acknowledges the alert.
    assert.deepEqual(await admin('alerts', 'clear', 'lockupLost', swap.id), { kind: 'lockupLost', key: swap.id, cleared: true });
    assert.equal((await scrape()).get('ferry_alerts_active{kind="lockupLost"}'), 0);
  } finally {
    close();
  }
});
