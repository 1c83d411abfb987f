// Two Ferry processes on one PostgreSQL database (a fresh schema), one devnet process: swaps are created and followed
// through the standby instance while the other leads; then the leader is SIGKILLed mid-swap (FERRY_CRASH_AT) and the
// standby takes over and finishes. The effects are counted on the Lightning nodes and on chain: the invoice paid
// once, the reverse lockup sent once. A WebSocket client of the standby sees every update; a covenant claim
// registered through the standby is claimed by the leader (the registration lives in the database). Failover times
// are printed.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs), but for the chain swap, which never
// reaches Ferry's node (testOffTheNode).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { useDevnetProcess, type RunningFerry } from '../helpers/devnet-process.ts';
import { SwapWallet } from '../helpers/swap-wallet.ts';
import { ChainSwapWallet } from '../helpers/chain-swap-wallet.ts';
import { LiquidSwapWallet } from '../helpers/liquid-swap-wallet.ts';
import { boltzCore4 } from '../helpers/liquid-boltz-core-4.ts';
import { LiquidChain } from './scenarios/support/liquid-chain.ts';
import { POSTGRES_URL } from '../db/harness.ts';
import { DevnetChain } from './scenarios/support/chain.ts';
import { LightningNodes } from './scenarios/support/lightning.ts';
import { claimReverseLockedOnce } from './scenarios/support/reverse-once.ts';
import { CovenantReceiver, lockupOf } from '../api/covenant-receiver.ts';
import { SwapApi } from '../helpers/swap-api.ts';
import { testOffTheNode } from '../helpers/test-lightning.ts';

const devnet = useDevnetProcess('ferry-instances-');
let configFile: string;
let databaseUrl: string;
let schema: string;
let info: DevnetInfo;
let chain: DevnetChain;
let liquid: LiquidChain;
let lightning: LightningNodes;
const failovers: { test: string; leaderMs: number; swapMs: number; freed: boolean }[] = [];

before(async () => {
  await devnet.ready;
  schema = `ferry_instances_${randomBytes(6).toString('hex')}`;
  databaseUrl = `${POSTGRES_URL}?schema=${schema}`;
  configFile = join(devnet.root, 'ferry.toml');
  // Both instances share the operator's mnemonic (the swap keys); each keeps its own data directory (instance id).
  writeFileSync(configFile, `[bitcoin]\npollIntervalMs = 150\n[liquid]\npollIntervalMs = 150\n[swap]\nmnemonicPath = "${join(devnet.root, 'mnemonic')}"\n`);
  info = devnet.info;
  chain = new DevnetChain(info);
  liquid = new LiquidChain(info);
  lightning = new LightningNodes(info);
});

after(async () => {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
  for (const f of failovers) {
    const freed = f.freed ? "; the dead leader's swap locks freed at once" : '';
    process.stdout.write(`# failover (${f.test}): leader after ${f.leaderMs} ms, swap moving again after ${f.swapMs} ms${freed}\n`);
  }
});

interface Instance extends RunningFerry {
  role: string;
}

/** `ferry start` as instance `name` (its own data directory) on the shared database. */
async function startInstance(name: string, crashAt = ''): Promise<Instance> {
  const running = await devnet.startFerry({ FERRY_CONFIG: configFile, FERRY_DATA_DIR: join(devnet.root, name), FERRY_DATABASE_URL: databaseUrl, FERRY_CRASH_AT: crashAt });
  return { ...running, role: (await health(running.apiUrl)).role as string };
}

async function health(apiUrl: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${apiUrl}/health`);
  assert.equal(response.status, 200);
  return (await response.json()) as Record<string, unknown>;
}

/** A leader, then a standby: the swaps of a test go through the standby. */
async function startPair(leaderCrashAt = ''): Promise<{ leader: Instance; standby: Instance }> {
  const leader = await startInstance('a', leaderCrashAt);
  assert.equal(leader.role, 'leader');
  const standby = await startInstance('b');
  assert.equal(standby.role, 'standby');
  return { leader, standby };
}

/** Waits for the leader to kill itself at `point`; returns when it died (ms since the epoch). */
async function untilCrash(leader: Instance, point: string): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the leader never reached ${point}:\n${leader.process.lines.slice(-30).join('\n')}`)), 30_000);
  });
  try {
    await Promise.race([leader.process.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
  const died = Date.now();
  assert.equal(leader.process.child.signalCode, 'SIGKILL');
  assert.ok(leader.process.lines.some((line) => line.includes(`FERRY_CRASH_AT=${point}`)), 'killed at the named point');
  return died;
}

/** The new leader found swap locks of the dead one and freed them instead of waiting for their leases to expire. */
const freedLocks = (instance: Instance): boolean => instance.process.lines.some((line) => line.includes('freed the swap locks'));

async function stop(instance: Instance): Promise<void> {
  instance.process.child.kill('SIGTERM');
  assert.equal(await instance.process.exited, 0, instance.process.lines.slice(-20).join('\n'));
}

/** Payments Ferry's node lists for a hash (in-flight ones included). */
const recordedPayments = (paymentHash: string): Promise<number> => lightning.paymentCount('ferry', paymentHash);

describe('two instances on one PostgreSQL database', { timeout: 600_000 }, () => {
  test('swaps created, claimed and followed through the standby: the leader performs them, the standby’s WebSocket sees every update', async () => {
    const { leader, standby } = await startPair();
    const wallet = await SwapWallet.open({ apiUrl: standby.apiUrl, devnet: info });
    try {
      // Submarine: created on the standby, paid by the leader, co-signed on the standby.
      const amount = 30_000;
      const { invoice, paymentHash } = await lightning.addInvoice('alice', amount);
      const aliceBefore = await lightning.balance('alice');
      const swap = await wallet.createSubmarine({ invoice });
      const fromHeight = (await chain.height()) + 1;
      const lockup = await wallet.fund(swap, swap.expectedAmount!);
      await chain.mine(1);
      await wallet.status.waitFor(swap.id, 'transaction.claim.pending');
      await wallet.cooperativeClaim(swap);
      await wallet.status.waitFor(swap.id, 'transaction.claimed');
      // transaction.mempool only when the leader's watcher polled between the broadcast and the block.
      const seen = wallet.status.statuses(swap.id).filter((status) => status !== 'transaction.mempool');
      assert.deepEqual(seen, ['invoice.set', 'transaction.confirmed', 'invoice.pending', 'invoice.paid', 'transaction.claim.pending', 'transaction.claimed']);
      assert.equal((await lightning.balance('alice')).localMsat - aliceBefore.localMsat, BigInt(amount) * 1000n, 'alice was paid once');
      assert.equal(await recordedPayments(paymentHash), 1);
      await chain.mine(1);
      assert.equal((await chain.spendsOf(lockup.txid, lockup.vout, fromHeight)).length, 1, 'the lockup was claimed once');

      // Reverse: created on the standby (the leader follows its invoice), claimed cooperatively on the standby.
      const reverse = await wallet.createReverse(50_000);
      const payment = lightning.pay('alice', reverse.invoice);
      await wallet.status.waitFor(reverse.id, 'transaction.mempool');
      const { hex: lockupHex } = await wallet.api.expect('GET', `/v2/swap/reverse/${reverse.id}/transaction`, undefined, 200);
      await wallet.cooperativeReverseClaim(reverse, wallet.reverseLockup(reverse, lockupHex), await wallet.destination());
      await wallet.status.waitFor(reverse.id, 'invoice.settled');
      assert.equal((await payment).status, 'SUCCEEDED');
      assert.deepEqual(wallet.status.statuses(reverse.id), ['swap.created', 'transaction.mempool', 'invoice.settled']);
      assert.equal((await health(standby.apiUrl)).role, 'standby', 'the standby never led');
    } finally {
      wallet.close();
      await stop(standby);
      await stop(leader);
    }
  });

  test('a covenant claim registered through the standby: the leader locks and claims to the address', async () => {
    const { leader, standby } = await startPair();
    try {
      const receiver = new CovenantReceiver(info);
      const { created, preimage, expected } = await receiver.registeredSwap(new SwapApi(standby.apiUrl), 44_000);
      const paid = receiver.payer().payInvoice({ paymentRequest: created.invoice, timeoutSeconds: 120, feeLimitMsat: 10_000n });
      const claimTx = await receiver.spenderOf(await lockupOf(standby.apiUrl, created.id), 60_000);
      await receiver.assertPaid(claimTx, expected);
      const payment = await paid;
      assert.equal(payment.status, 'SUCCEEDED', 'the invoice was settled');
      assert.equal(payment.preimage, Buffer.from(preimage).toString('hex'), 'with the preimage the claim revealed');
      assert.equal((await health(standby.apiUrl)).role, 'standby', 'the standby never led');
    } finally {
      await stop(standby);
      await stop(leader);
    }
  });

  testOffTheNode('a chain swap through the standby: the leader locks L-BTC, the standby co-signs the claim (chain claim)', async () => {
    const { leader, standby } = await startPair();
    const bitcoin = await SwapWallet.open({ apiUrl: standby.apiUrl, devnet: info });
    const wallet = new ChainSwapWallet(bitcoin, await LiquidSwapWallet.open({ apiUrl: standby.apiUrl, devnet: info, library: boltzCore4 }));
    try {
      const [bitcoinFrom, liquidFrom] = [(await chain.height()) + 1, (await liquid.height()) + 1];
      const operatorBefore = await liquid.balance(liquid.operator);
      const swap = await wallet.create('BTC', 'L-BTC', 100_000);
      const lockup = await wallet.fund(swap);
      await chain.mine(1); // the devnet wallet's lockup signals RBF: Ferry locks once it is in a block
      const sent = await wallet.status.waitFor(swap.id, 'transaction.server.mempool');
      const serverLockup = wallet.serviceLockup(swap, sent.transaction!.hex!);
      await liquid.mine(1);
      await wallet.status.waitFor(swap.id, 'transaction.server.confirmed');
      const claim = await wallet.cooperativeClaim(swap, serverLockup);
      await wallet.status.waitFor(swap.id, 'transaction.claimed');
      await Promise.all([chain.mine(1), liquid.mine(1)]);

      const lockups = await liquid.paymentsTo(Buffer.from(swap.claim.outputScript), liquidFrom);
      assert.deepEqual(lockups.map((tx) => tx.txid), [serverLockup.txid], "one transaction pays Ferry's lockup address");
      const lockupFee = await liquid.fee(serverLockup.txid);
      assert.equal(await liquid.balance(liquid.operator), operatorBefore - BigInt(swap.claim.amount) - lockupFee, 'the operator wallet locked once');
      assert.deepEqual((await liquid.spendsOf(serverLockup.txid, serverLockup.vout, liquidFrom)).map((spend) => spend.txid), [claim.txid]);
      assert.equal((await chain.spendsOf(lockup.txid, lockup.vout, bitcoinFrom)).length, 1, "Ferry claimed the user's BTC once");
      assert.equal((await health(standby.apiUrl)).role, 'standby');
    } finally {
      bitcoin.close();
      wallet.liquid.close();
      await stop(standby);
      await stop(leader);
    }
  });

  test('the leader is SIGKILLed with a payment in flight: the standby takes over, finishes the swap, the invoice is paid once', async () => {
    const point = 'submarine.payment-in-flight';
    const { leader, standby } = await startPair(point);
    const wallet = await SwapWallet.open({ apiUrl: standby.apiUrl, devnet: info });
    try {
      const amount = 40_000;
      const { invoice, paymentHash } = await lightning.addInvoice('alice', amount);
      const [aliceBefore, ferryBefore] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry')]);
      const swap = await wallet.createSubmarine({ invoice });
      const fromHeight = (await chain.height()) + 1;
      const lockup = await wallet.fund(swap, swap.expectedAmount!);
      await chain.mine(1);
      const died = await untilCrash(leader, point);
      await standby.process.waitFor((entry) => entry.message === 'leading');
      const leaderMs = Date.now() - died;
      await wallet.status.waitFor(swap.id, 'transaction.claim.pending');
      failovers.push({ test: 'payment in flight', leaderMs, swapMs: Date.now() - died, freed: freedLocks(standby) });
      assert.equal((await health(standby.apiUrl)).role, 'leader');
      await wallet.cooperativeClaim(swap);
      await wallet.status.waitFor(swap.id, 'transaction.claimed');
      await chain.mine(1);

      const [aliceAfter, ferryAfter] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry')]);
      assert.equal(aliceAfter.localMsat - aliceBefore.localMsat, BigInt(amount) * 1000n, 'alice was paid once');
      assert.equal(ferryBefore.localMsat - ferryAfter.localMsat, BigInt(amount) * 1000n, "Ferry's node paid once");
      assert.equal(await recordedPayments(paymentHash), 1, 'the node has one payment for the invoice');
      assert.equal((await chain.spendsOf(lockup.txid, lockup.vout, fromHeight)).length, 1, 'the lockup was claimed once');
      const seen = wallet.status.statuses(swap.id);
      assert.deepEqual(seen.slice(-2), ['transaction.claim.pending', 'transaction.claimed'], seen.join(' '));
      // Generous: the standby retries every 500 ms; the bound only catches a takeover that waits for lease expiry.
      assert.ok(leaderMs < 10_000, `took ${leaderMs} ms to take over`);
    } finally {
      wallet.close();
      await stop(standby);
    }
  });

  test('the leader is SIGKILLed right after broadcasting a reverse lockup: the standby takes over, the lockup is sent once', async () => {
    const point = 'reverse.lockup-broadcast';
    const { leader, standby } = await startPair(point);
    const wallet = await SwapWallet.open({ apiUrl: standby.apiUrl, devnet: info });
    try {
      const amount = 70_000;
      const [aliceBefore, operatorBefore] = await Promise.all([lightning.balance('alice'), chain.balance(chain.operator)]);
      const swap = await wallet.createReverse(amount);
      const fromHeight = (await chain.height()) + 1;
      const payment = lightning.pay('alice', swap.invoice);
      const died = await untilCrash(leader, point);
      await standby.process.waitFor((entry) => entry.message === 'leading');
      const leaderMs = Date.now() - died;
      await wallet.status.waitFor(swap.id, 'transaction.mempool');
      failovers.push({ test: 'reverse lockup broadcast', leaderMs, swapMs: Date.now() - died, freed: freedLocks(standby) });
      await claimReverseLockedOnce(wallet, swap, payment, { chain, lightning }, { amount, fromHeight, operatorBefore, aliceBefore });
      assert.ok(leaderMs < 10_000, `took ${leaderMs} ms to take over`);
    } finally {
      wallet.close();
      await stop(standby);
    }
  });
});
