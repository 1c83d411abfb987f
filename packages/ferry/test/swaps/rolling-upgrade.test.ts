// A rolling upgrade of two Ferry instances on one PostgreSQL database while swaps are in flight, as
// docs/operations.md#upgrading tells an operator to do it: instance A is taken out of the load balancer, stopped
// (SIGTERM) and started as the next release, whose one new migration only expands the schema (marked compatible),
// while B, still the old release, leads and serves beside the migrated database; then B is upgraded the same way.
// The next release is this tree's sources built with that migration appended (helpers/next-release.ts). A client
// polls every serving instance the whole time: no request may fail. Submarine, reverse and chain swaps wait in
// several statuses when the roll begins, move on during it and end on the upgraded pair; the test then counts the
// effects on the chains and the Lightning nodes (each invoice paid once, each lockup sent once and spent once).
// Last, the release after (a contracting migration, not marked compatible) runs once, and the old release refuses
// to start on that database with a message naming both schema versions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { hex } from '@scure/base';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { SCHEMA_VERSION } from '../../src/db/migrations.ts';
import type { PaymentUpdate } from '../../src/lightning/backend.ts';
import { useDevnetProcess, type RunningFerry } from '../helpers/devnet-process.ts';
import { devnetNodesEnv, releaseCommand, ferryBin } from '../helpers/ferry-process.ts';
import { buildNextRelease, type NextRelease } from '../helpers/next-release.ts';
import { ephemeralPorts } from '../helpers/ports.ts';
import { SwapWallet } from '../helpers/swap-wallet.ts';
import { ChainSwapWallet } from '../helpers/chain-swap-wallet.ts';
import { LiquidSwapWallet } from '../helpers/liquid-swap-wallet.ts';
import { boltzCore4 } from '../helpers/liquid-boltz-core-4.ts';
import { POSTGRES_URL } from '../db/harness.ts';
import { LiquidChain } from './scenarios/support/liquid-chain.ts';
import { DevnetChain } from './scenarios/support/chain.ts';
import { LightningNodes } from './scenarios/support/lightning.ts';

const devnet = useDevnetProcess('ferry-rolling-');
/** A hang guard for each status wait: on a machine at load ~25 a status took over the status socket's 30 s default. */
const WAIT = 300_000;
let configFile: string;
let databaseUrl: string;
let schema: string;
let info: DevnetInfo;
let chain: DevnetChain;
let liquid: LiquidChain;
let lightning: LightningNodes;
let next: NextRelease;
let contracting: NextRelease;

before(async () => {
  await devnet.ready;
  schema = `ferry_rolling_${randomBytes(6).toString('hex')}`;
  databaseUrl = `${POSTGRES_URL}?schema=${schema}`;
  configFile = join(devnet.root, 'ferry.toml');
  // Paid submarine swaps wait for the wallet's cooperative claim across the roll (minutes on a loaded machine), not
  // the default minute before Ferry claims alone.
  writeFileSync(
    configFile,
    `[bitcoin]\npollIntervalMs = 150\n[liquid]\npollIntervalMs = 150\n[swap]\nclaimDelayMs = 3600000\nmnemonicPath = "${join(devnet.root, 'mnemonic')}"\n`,
  );
  info = devnet.info;
  chain = new DevnetChain(info);
  liquid = new LiquidChain(info);
  lightning = new LightningNodes(info);
  // The next release expands: a nullable column and an index, which the old release's statements never see.
  next = buildNextRelease('0.2.0-next', [
    { name: 'swaps.upgrade_note', compatible: true, statements: ['ALTER TABLE swaps ADD COLUMN upgrade_note TEXT', 'CREATE INDEX swaps_upgrade_note_idx ON swaps (upgrade_note)'] },
  ]);
  // The release after contracts what the next one added: not marked compatible.
  contracting = buildNextRelease('0.3.0-next', [
    { name: 'swaps.upgrade_note', compatible: true, statements: ['ALTER TABLE swaps ADD COLUMN upgrade_note TEXT', 'CREATE INDEX swaps_upgrade_note_idx ON swaps (upgrade_note)'] },
    { name: 'drop swaps.upgrade_note', compatible: false, statements: ['DROP INDEX swaps_upgrade_note_idx', 'ALTER TABLE swaps DROP COLUMN upgrade_note'] },
  ]);
});

after(async () => {
  next?.remove();
  contracting?.remove();
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

interface Instance extends RunningFerry {
  name: string;
  release: string;
}

async function startInstance(name: string, release?: NextRelease): Promise<Instance> {
  const running = await devnet.startFerry({ FERRY_CONFIG: configFile, FERRY_DATA_DIR: join(devnet.root, name), FERRY_DATABASE_URL: databaseUrl }, release?.bin);
  return { ...running, name, release: release?.version ?? 'old' };
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  return (await response.json()) as Record<string, unknown>;
}

/**
 * The client of the load balancer: reads every swap's status, /version and the pairs from each instance in rotation,
 * without pause, and keeps every answer that was not a success. An instance is drained (no new request, the running
 * ones awaited) before it is stopped, as a load balancer does.
 */
class Poller {
  readonly serving = new Map<string, Instance>();
  readonly failures: string[] = [];
  requests = 0;
  private readonly inFlight = new Map<string, Set<Promise<void>>>();
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly ids: () => { type: string; id: string }[]) {
    this.loop = this.run();
  }

  add(instance: Instance): void {
    this.serving.set(instance.name, instance);
    this.inFlight.set(instance.name, new Set());
  }

  async drain(instance: Instance): Promise<void> {
    this.serving.delete(instance.name);
    await Promise.all(this.inFlight.get(instance.name) ?? []);
  }

  private async one(instance: Instance, path: string): Promise<void> {
    this.requests++;
    try {
      const response = await fetch(instance.apiUrl + path);
      await response.arrayBuffer();
      if (!response.ok) this.failures.push(`${instance.name} (${instance.release}) GET ${path}: ${response.status}`);
    } catch (error) {
      this.failures.push(`${instance.name} (${instance.release}) GET ${path}: ${(error as Error).message}`);
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      const paths = ['/version', '/v2/swap/submarine', ...this.ids().map((s) => `/v2/swap/${s.id}`)];
      const round: Promise<void>[] = [];
      for (const instance of this.serving.values()) {
        const pending = this.inFlight.get(instance.name)!;
        for (const path of paths) {
          const request = this.one(instance, path).finally(() => pending.delete(request));
          pending.add(request);
          round.push(request);
        }
      }
      // one round at a time, and a turn of the event loop when nothing serves
      await (round.length > 0 ? Promise.all(round) : new Promise((resolve) => setImmediate(resolve)));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/** Waits until `instance` leads: its 'leading' line may have come already (while the other one was exiting). */
async function leads(instance: Instance): Promise<void> {
  if (instance.process.lines.some((line) => line.includes('"message":"leading"'))) return;
  await instance.process.waitFor((entry) => entry.message === 'leading', WAIT);
}

async function stopInstance(poller: Poller, instance: Instance): Promise<void> {
  await poller.drain(instance);
  instance.process.child.kill('SIGTERM');
  assert.equal(await instance.process.exited, 0, instance.process.lines.slice(-20).join('\n'));
}

/** Wallets talking to one instance, following `ids` on its WebSocket. */
async function walletsOn(instance: Instance, ids: string[]): Promise<{ bitcoin: SwapWallet; chainWallet: ChainSwapWallet; close(): void }> {
  const bitcoin = await SwapWallet.open({ apiUrl: instance.apiUrl, devnet: info });
  const liquidWallet = await LiquidSwapWallet.open({ apiUrl: instance.apiUrl, devnet: info, library: boltzCore4 });
  await bitcoin.status.subscribe(...ids);
  await liquidWallet.status.subscribe(...ids);
  return {
    bitcoin,
    chainWallet: new ChainSwapWallet(bitcoin, liquidWallet),
    close() {
      bitcoin.close();
      liquidWallet.close();
    },
  };
}

/** The column the next release's migration added, as PostgreSQL lists it. */
async function upgradeColumn(): Promise<number> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT COUNT(*)::int AS n FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'swaps' AND column_name = 'upgrade_note'`,
      [schema],
    );
    return rows[0].n as number;
  } finally {
    await client.end();
  }
}

describe('a rolling upgrade of two instances with swaps in flight', { timeout: 900_000 }, () => {
  test('A then B move to the next release; every swap ends once, no request fails; the old release refuses a contracted schema', async () => {
    const swapIds: { type: string; id: string }[] = [];
    const poller = new Poller(() => swapIds);
    let a = await startInstance('a');
    let b = await startInstance('b');
    assert.equal((await getJson(`${a.apiUrl}/health`)).role, 'leader');
    poller.add(a);
    poller.add(b);
    const [aliceBefore, ferryBefore] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry')]);
    const [bitcoinFrom, liquidFrom] = [(await chain.height()) + 1, (await liquid.height()) + 1];

    // ----- swaps in flight, created through B (the standby) -----
    let wallets = await walletsOn(b, []);
    const sub1Amount = 30_000;
    const sub1Invoice = await lightning.addInvoice('alice', sub1Amount);
    const sub1 = await wallets.bitcoin.createSubmarine({ invoice: sub1Invoice.invoice }); // waits for its lockup
    const sub2Amount = 40_000;
    const sub2Invoice = await lightning.addInvoice('alice', sub2Amount);
    const sub2 = await wallets.bitcoin.createSubmarine({ invoice: sub2Invoice.invoice });
    const rev1 = await wallets.bitcoin.createReverse(50_000); // its invoice not paid yet
    const rev2 = await wallets.bitcoin.createReverse(60_000);
    const chain1 = await wallets.chainWallet.create('BTC', 'L-BTC', 100_000); // its lockup not sent yet
    swapIds.push(...[sub1, sub2, rev1, rev2].map((s) => ({ type: s.kind, id: s.id })), { type: 'chain', id: chain1.id });

    const sub2Lockup = await wallets.bitcoin.fund(sub2, sub2.expectedAmount!);
    await chain.mine(1);
    await wallets.bitcoin.status.waitFor(sub2.id, 'transaction.claim.pending', WAIT); // the invoice paid, the claim to co-sign
    const rev2Payment = lightning.pay('alice', rev2.invoice);
    await wallets.bitcoin.status.waitFor(rev2.id, 'transaction.mempool', WAIT); // the lockup sent, the invoice held
    const before = Object.fromEntries(await Promise.all(swapIds.map(async (s) => [s.id, (await getJson(`${b.apiUrl}/v2/swap/${s.id}`)).status])));
    assert.deepEqual(before, {
      [sub1.id]: 'invoice.set',
      [sub2.id]: 'transaction.claim.pending',
      [rev1.id]: 'swap.created',
      [rev2.id]: 'transaction.mempool',
      [chain1.id]: 'swap.created',
    });
    wallets.close();

    // ----- A: out of the balancer, stopped, started as the next release; B (old) leads meanwhile -----
    await stopInstance(poller, a);
    await leads(b);
    a = await startInstance('a', next);
    poller.add(a);
    assert.equal(await upgradeColumn(), 1, 'the next release migrated the shared database');
    const [aVersion, bVersion] = await Promise.all([getJson(`${a.apiUrl}/version`), getJson(`${b.apiUrl}/version`)]);
    assert.deepEqual([aVersion.version, aVersion.schemaVersion, aVersion.databaseSchemaVersion], ['0.2.0-next', SCHEMA_VERSION + 1, SCHEMA_VERSION + 1]);
    assert.deepEqual([bVersion.schemaVersion, bVersion.databaseSchemaVersion], [SCHEMA_VERSION, SCHEMA_VERSION + 1], 'the old release runs beside it');
    assert.equal((await getJson(`${a.apiUrl}/health`)).role, 'standby');

    // Every swap moves while the releases are mixed: the old leader performs, the new one answers the wallets.
    wallets = await walletsOn(a, swapIds.map((s) => s.id));
    const sub1Lockup = await wallets.bitcoin.fund(sub1, sub1.expectedAmount!);
    const chainLockup = await wallets.chainWallet.fund(chain1);
    const rev1Payment = lightning.pay('alice', rev1.invoice);
    await chain.mine(1);
    await wallets.bitcoin.cooperativeClaim(sub2);
    await wallets.bitcoin.status.waitFor(sub2.id, 'transaction.claimed', WAIT);
    const rev2Lockup = wallets.bitcoin.reverseLockup(rev2, (await wallets.bitcoin.api.expect('GET', `/v2/swap/reverse/${rev2.id}/transaction`, undefined, 200)).hex);
    await wallets.bitcoin.cooperativeReverseClaim(rev2, rev2Lockup, await wallets.bitcoin.destination());
    await wallets.bitcoin.status.waitFor(rev2.id, 'invoice.settled', WAIT);
    await wallets.bitcoin.status.waitFor(sub1.id, 'transaction.claim.pending', WAIT);
    await wallets.bitcoin.status.waitFor(rev1.id, 'transaction.mempool', WAIT);
    const sent = await wallets.chainWallet.status.waitFor(chain1.id, 'transaction.server.mempool', WAIT);
    const chainServerLockup = wallets.chainWallet.serviceLockup(chain1, sent.transaction!.hex!);
    wallets.close();

    // ----- B: the same; the upgraded A leads -----
    await stopInstance(poller, b);
    await leads(a);
    b = await startInstance('b', next);
    poller.add(b);
    assert.deepEqual((await getJson(`${b.apiUrl}/version`)).schemaVersion, SCHEMA_VERSION + 1);

    wallets = await walletsOn(b, swapIds.map((s) => s.id));
    await wallets.bitcoin.cooperativeClaim(sub1);
    await wallets.bitcoin.status.waitFor(sub1.id, 'transaction.claimed', WAIT);
    const rev1Lockup = wallets.bitcoin.reverseLockup(rev1, (await wallets.bitcoin.api.expect('GET', `/v2/swap/reverse/${rev1.id}/transaction`, undefined, 200)).hex);
    await wallets.bitcoin.cooperativeReverseClaim(rev1, rev1Lockup, await wallets.bitcoin.destination());
    await wallets.bitcoin.status.waitFor(rev1.id, 'invoice.settled', WAIT);
    await liquid.mine(1);
    await wallets.chainWallet.status.waitFor(chain1.id, 'transaction.server.confirmed', WAIT);
    const chainClaim = await wallets.chainWallet.cooperativeClaim(chain1, chainServerLockup);
    await wallets.chainWallet.status.waitFor(chain1.id, 'transaction.claimed', WAIT);
    wallets.close();
    await Promise.all([chain.mine(1), liquid.mine(1)]);
    await poller.stop();

    // ----- what was paid, each once -----
    assert.deepEqual(poller.failures, [], `failed requests during the roll (of ${poller.requests})`);
    process.stdout.write(`# rolling upgrade: ${poller.requests} requests to the serving instances, none failed\n`);
    const finals = Object.fromEntries(await Promise.all(swapIds.map(async (s) => [s.id, (await getJson(`${a.apiUrl}/v2/swap/${s.id}`)).status])));
    assert.deepEqual(finals, {
      [sub1.id]: 'transaction.claimed',
      [sub2.id]: 'transaction.claimed',
      [rev1.id]: 'invoice.settled',
      [rev2.id]: 'invoice.settled',
      [chain1.id]: 'transaction.claimed',
    });
    const payments: PaymentUpdate[] = [];
    for (const [invoice, amount] of [
      [sub1Invoice, sub1Amount],
      [sub2Invoice, sub2Amount],
    ] as const) {
      const settled = await lightning.invoice('alice', invoice.paymentHash);
      assert.equal(settled.state, 'SETTLED');
      assert.equal(settled.amountPaidMsat, BigInt(amount) * 1000n, "alice's invoice paid its amount, once");
      assert.equal(await lightning.paymentCount('ferry', invoice.paymentHash), 1, "Ferry's node has one payment for it");
      payments.push((await lightning.payment('ferry', invoice.paymentHash))!);
    }
    for (const [swap, payment] of [
      [rev1, rev1Payment],
      [rev2, rev2Payment],
    ] as const) {
      const paid = await payment;
      assert.equal(paid.status, 'SUCCEEDED');
      assert.equal(paid.preimage, hex.encode(swap.preimage));
      payments.push(paid);
    }
    for (const [lockup, spends] of [
      [sub1Lockup, await chain.spendsOf(sub1Lockup.txid, sub1Lockup.vout, bitcoinFrom)],
      [sub2Lockup, await chain.spendsOf(sub2Lockup.txid, sub2Lockup.vout, bitcoinFrom)],
      [chainLockup, await chain.spendsOf(chainLockup.txid, chainLockup.vout, bitcoinFrom)],
    ] as const) {
      assert.equal(spends.length, 1, `the user's lockup ${lockup.txid} was claimed once`);
    }
    for (const [swap, lockup] of [
      [rev1, rev1Lockup],
      [rev2, rev2Lockup],
    ] as const) {
      assert.deepEqual((await chain.paymentsTo(swap.outputScript, bitcoinFrom)).map((tx) => tx.txid), [lockup.txid], 'one reverse lockup sent');
      assert.equal((await chain.spendsOf(lockup.txid, lockup.vout, bitcoinFrom)).length, 1);
    }
    assert.deepEqual((await liquid.paymentsTo(Buffer.from(chain1.claim.outputScript), liquidFrom)).map((tx) => tx.txid), [chainServerLockup.txid], 'Ferry locked L-BTC once');
    assert.deepEqual((await liquid.spendsOf(chainServerLockup.txid, chainServerLockup.vout, liquidFrom)).map((spend) => spend.txid), [chainClaim.txid]);
    // The channels: alice got both submarine invoices and paid both reverse ones; Ferry's node the other way round.
    const [aliceAfter, ferryAfter] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry')]);
    const [s1, s2, r1, r2] = payments;
    const net = BigInt(sub1Amount + sub2Amount - rev1.invoiceAmount - rev2.invoiceAmount) * 1000n;
    assert.equal(aliceAfter.localMsat - aliceBefore.localMsat, net - r1.feeMsat - r2.feeMsat, 'alice: each invoice once');
    assert.equal(ferryAfter.localMsat - ferryBefore.localMsat, -net - s1.feeMsat - s2.feeMsat, "Ferry's node: each invoice once");

    // ----- the release after contracts: the old release (and the next) refuse that database -----
    await stopInstance(poller, a);
    await stopInstance(poller, b);
    const contracted = await startInstance('a', contracting);
    contracted.process.child.kill('SIGTERM');
    assert.equal(await contracted.process.exited, 0);
    assert.equal(await upgradeColumn(), 0, 'the contracting migration ran');
    const env = { ...process.env, ...ephemeralPorts, FERRY_API_PORT: '0', ...devnetNodesEnv(info), FERRY_CONFIG: configFile, FERRY_DATA_DIR: join(devnet.root, 'b'), FERRY_DATABASE_URL: databaseUrl };
    for (const [bin, known] of [
      [ferryBin, SCHEMA_VERSION],
      [next.bin, SCHEMA_VERSION + 1],
    ] as const) {
      const run = await releaseCommand(bin, env, 'start');
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.equal(
        run.stderr,
        `ferry: database schema is at version ${SCHEMA_VERSION + 2}, but this Ferry knows migrations only up to ${known} ` +
          `and migration ${SCHEMA_VERSION + 2} "drop swaps.upgrade_note" is not marked compatible with older code; ` +
          'upgrade Ferry or point it at another database\n',
      );
    }
  });
});
