// The restore drill (issue 26), run on SQLite and on PostgreSQL by the two restore-drill-*.test.ts files: the worst
// day. Swaps wait in five statuses, a backup is taken while Ferry runs, every swap moves on after it (invoices paid,
// lockups sent and claimed), Ferry is killed (SIGKILL) and its data directory is lost. Ferry is restored from the
// backup and the mnemonic alone, and must bring every swap to the end it would have had, learning what happened after
// the backup from the chains and the Lightning node, without paying anything twice. The effects are counted: alice's
// invoices paid once each and Ferry's node one payment per hash, each lockup address paid by one transaction, each
// lockup spent once, and the operator's BTC wallet moved by exactly those transactions.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hex } from '@scure/base';
import type { PaymentUpdate } from '../../src/lightning/backend.ts';
import { RESTORE_KEY_INDEX_SKIP } from '../../src/admin/restored.ts';
import { useDevnetProcess, type RunningFerry } from '../helpers/devnet-process.ts';
import { ferryCommand } from '../helpers/ferry-process.ts';
import { SwapWallet, type Lockup, type ReverseSwap } from '../helpers/swap-wallet.ts';
import { createBtcToLbtc, lockBtc, scriptPathClaimOf, type ClientSide } from '../engine/chain-support.ts';
import { DevnetChain } from './scenarios/support/chain.ts';
import { LiquidChain } from './scenarios/support/liquid-chain.ts';
import { LightningNodes } from './scenarios/support/lightning.ts';

/** How a drill keeps Ferry's database, takes its backup and restores it once the data directory is gone. */
export interface DrillStorage {
  /** FERRY_DATABASE_URL for `ferry start`; undefined: `<dataDir>/ferry.sqlite`. */
  databaseUrl?: string;
  /** Takes the backup while Ferry runs. */
  backup(ferry: { env: Record<string, string>; dataDir: string }, file: string): Promise<void>;
  /** What the data directory's loss takes from the database (nothing more for SQLite: the file is in it). */
  lose(): Promise<void>;
  /** Puts the backup back where the restored Ferry reads it. */
  restore(file: string, dataDir: string): Promise<void>;
}

const SUBMARINE_SAT = 40_000;
const REVERSE_SAT = 70_000;
const CHAIN_SAT = 90_000;

export function restoreDrill(prefix: string, storage: () => DrillStorage): { run(): Promise<void> } {
  const devnet = useDevnetProcess(prefix);
  return {
    async run() {
      await devnet.ready;
      const drill = storage();
      const info = devnet.info;
      const chain = new DevnetChain(info);
      const liquid = new LiquidChain(info);
      const lightning = new LightningNodes(info);
      const dataDir = join(devnet.root, 'ferry');
      const configFile = join(devnet.root, 'ferry.toml');
      // A quick watcher; Ferry claims a user's lockup alone 15 s after it can (the backup is taken well within that
      // of swap B's payment, so B waits for its cooperative claim; the chain swap's claim comes that late).
      writeFileSync(configFile, '[bitcoin]\npollIntervalMs = 150\n[liquid]\npollIntervalMs = 150\n[swap]\nclaimDelayMs = 15000\n');
      const env = { FERRY_CONFIG: configFile, FERRY_DATA_DIR: dataDir, ...(drill.databaseUrl ? { FERRY_DATABASE_URL: drill.databaseUrl } : {}) };
      const start = (): Promise<RunningFerry> => devnet.startFerry(env);

      const fromHeight = (await chain.height()) + 1;
      const liquidFromHeight = (await liquid.height()) + 1;
      const operatorBefore = await chain.balance(chain.operator);
      const aliceBefore = await lightning.balance('alice');

      // Before the backup: five swaps in five statuses.
      let ferry = await start();
      const mnemonic = readFileSync(join(dataDir, 'mnemonic'), 'utf8'); // the operator's written-down copy
      let wallet = await SwapWallet.open({ apiUrl: ferry.apiUrl, devnet: info });
      const client = (apiUrl: string): ClientSide => ({ apiUrl, bitcoin: chain.rpc, bitcoinUser: chain.user, elements: liquid.rpc, elementsUser: liquid.user });

      // A: a submarine swap awaiting its lockup (invoice.set).
      const invoiceA = await lightning.addInvoice('alice', SUBMARINE_SAT, 'drill A');
      const a = await wallet.createSubmarine({ invoice: invoiceA.invoice });
      // C: a reverse swap with the hold invoice accepted and Ferry's lockup sent (transaction.mempool).
      const c = await wallet.createReverse(REVERSE_SAT);
      const paymentC = lightning.pay('alice', c.invoice);
      // D: a BTC -> L-BTC chain swap with the user's lockup confirmed and Ferry's L-BTC lockup sent.
      const d = await createBtcToLbtc(client(ferry.apiUrl), CHAIN_SAT);
      const lockupD = await lockBtc(client(ferry.apiUrl), d);
      // E: a reverse swap created, its invoice not paid yet (swap.created).
      const e = await wallet.createReverse(REVERSE_SAT + 1_000);
      await chain.mine(1);
      for (const swap of [a, c, e]) await wallet.status.subscribe(swap.id);
      await wallet.status.waitFor(c.id, 'transaction.mempool');
      await untilStatus(ferry.apiUrl, d.id, 'transaction.server.mempool');
      // B, last: a submarine swap whose invoice Ferry paid (transaction.claim.pending), its cooperative claim asked
      // for (a MuSig2 session open in the backup), the backup taken before Ferry would claim alone.
      const invoiceB = await lightning.addInvoice('alice', SUBMARINE_SAT + 1_000, 'drill B');
      const b = await wallet.createSubmarine({ invoice: invoiceB.invoice });
      await wallet.status.subscribe(b.id);
      const lockupB = await wallet.fund(b, b.expectedAmount!);
      await chain.mine(1);
      await wallet.status.waitFor(b.id, 'transaction.claim.pending');
      await wallet.api.expect('GET', `/v2/swap/submarine/${b.id}/claim`, undefined, 200);
      const [statusA, statusB, statusC, statusD, statusE] = await statuses(ferry.apiUrl, [a, b, c, d, e]);
      assert.deepEqual([statusA, statusB, statusD, statusE], ['invoice.set', 'transaction.claim.pending', 'transaction.server.mempool', 'swap.created']);
      assert.match(statusC, /^transaction\.(mempool|confirmed)$/, "C: Ferry's lockup sent (mined with D's lockup when Ferry was quick)");

      const backupFile = join(devnet.root, 'ferry-backup');
      await drill.backup({ env, dataDir }, backupFile);

      // After the backup every swap moves on; the backup knows none of it.
      const lockupA = await wallet.fund(a, a.expectedAmount!);
      await chain.mine(1);
      await wallet.status.waitFor(a.id, 'transaction.claim.pending');
      await wallet.cooperativeClaim(a);
      await wallet.cooperativeClaim(b);
      await wallet.status.waitFor(a.id, 'transaction.claimed');
      await wallet.status.waitFor(b.id, 'transaction.claimed');
      const lockupC = await reverseLockupOf(wallet, c);
      await wallet.cooperativeReverseClaim(c, lockupC, await wallet.destination());
      await wallet.status.waitFor(c.id, 'invoice.settled');
      const serverLockD = await serverLockupOf(ferry.apiUrl, d.id);
      const claimD = await scriptPathClaimOf(client(ferry.apiUrl), d, serverLockD);
      await liquid.rpc.sendRawTransaction(claimD.hex);
      await untilStatus(ferry.apiUrl, d.id, 'transaction.claimed');
      const paymentE = lightning.pay('alice', e.invoice);
      await wallet.status.waitFor(e.id, 'transaction.mempool');
      const lockupE = await reverseLockupOf(wallet, e);
      await chain.mine(1);
      await liquid.mine(1);
      wallet.close();

      // The worst day: Ferry killed, its data directory lost. The backup and the mnemonic are all that is left.
      ferry.process.child.kill('SIGKILL');
      await ferry.process.exited;
      rmSync(dataDir, { recursive: true, force: true });
      await drill.lose();
      mkdirSync(dataDir, { mode: 0o700 });
      writeFileSync(join(dataDir, 'mnemonic'), mnemonic, { mode: 0o600 });
      await drill.restore(backupFile, dataDir);
      // Once on the restored database, before Ferry starts on it: no signing session of the past signs again, no
      // swap key index handed out after the backup is handed out again.
      const restored = await ferryCommand({ ...process.env, ...env }, 'admin', 'restored');
      assert.equal(restored.code, 0, restored.stderr);
      const prepared = JSON.parse(restored.stdout) as { signingSessionsDropped: number; nextSwapKeyIndex: number };
      assert.ok(prepared.nextSwapKeyIndex >= RESTORE_KEY_INDEX_SKIP, restored.stdout);
      assert.ok(prepared.signingSessionsDropped >= 1, `B's claim session is dropped: ${restored.stdout}`);

      ferry = await start();
      wallet = await SwapWallet.open({ apiUrl: ferry.apiUrl, devnet: info });
      try {
        // Every swap reaches its end from what the chains and the node say.
        await untilStatus(ferry.apiUrl, a.id, 'transaction.claimed');
        await untilStatus(ferry.apiUrl, b.id, 'transaction.claimed');
        await untilStatus(ferry.apiUrl, c.id, 'invoice.settled');
        await untilStatus(ferry.apiUrl, d.id, 'transaction.claimed');
        // E: its lockup, sent after the backup, is found on chain, not sent again; the client claims it.
        await wallet.status.subscribe(e.id);
        const restoredLockupE = await reverseLockupOf(wallet, e);
        assert.equal(restoredLockupE.txid, lockupE.txid, "the restored Ferry names the lockup the lost one sent");
        await wallet.cooperativeReverseClaim(e, lockupE, await wallet.destination());
        await wallet.status.waitFor(e.id, 'invoice.settled');
        await chain.mine(1);
        await liquid.mine(1);

        // Lightning: each of alice's invoices paid once, by one payment of Ferry's node; alice paid each hold invoice once.
        for (const [swap, invoice, sat] of [[a, invoiceA, SUBMARINE_SAT], [b, invoiceB, SUBMARINE_SAT + 1_000]] as const) {
          assert.equal((await lightning.invoice('alice', invoice.paymentHash)).amountPaidMsat, BigInt(sat) * 1000n, `${swap.id}: alice's invoice paid once`);
          assert.equal(await lightning.paymentCount('ferry', invoice.paymentHash), 1, `${swap.id}: one payment by Ferry's node`);
        }
        const [paidC, paidE] = [await paymentC, await paymentE] as PaymentUpdate[];
        assert.equal(paidC.status, 'SUCCEEDED');
        assert.equal(paidE.status, 'SUCCEEDED');
        assert.equal(paidE.preimage, hex.encode(e.preimage));
        const aliceAfter = await lightning.balance('alice');
        const alicePaid = BigInt(REVERSE_SAT + REVERSE_SAT + 1_000) * 1000n + paidC.feeMsat + paidE.feeMsat - BigInt(2 * SUBMARINE_SAT + 1_000) * 1000n;
        assert.equal(aliceBefore.localMsat - aliceAfter.localMsat, alicePaid, "alice's channel moved by the four swaps once each");

        // Chains: one transaction pays each lockup address, each lockup spent once.
        for (const [swap, lockup] of [[a, lockupA], [b, lockupB], [c, lockupC], [e, lockupE]] as const) {
          assert.deepEqual((await chain.paymentsTo(swap.outputScript, fromHeight)).map((tx) => tx.txid), [lockup.txid], `${swap.id}: one lockup`);
          assert.equal((await chain.spendsOf(lockup.txid, lockup.vout, fromHeight)).length, 1, `${swap.id}: its lockup spent once`);
        }
        const serverScriptD = Buffer.from((await liquid.user.call<{ scriptPubKey: string }>('getaddressinfo', [d.claimDetails.lockupAddress])).scriptPubKey, 'hex');
        assert.deepEqual((await liquid.paymentsTo(serverScriptD, liquidFromHeight)).map((tx) => tx.txid), [serverLockD], `${d.id}: Ferry locked L-BTC once`);
        const spendsD = await chain.spendsOf(lockupD.txid, lockupD.vout, fromHeight);
        assert.equal(spendsD.length, 1, `${d.id}: the user's lockup claimed once`);

        // The operator's BTC wallet: the two submarine claims and the chain swap's claim in, the two reverse lockups out.
        const claims = await Promise.all([spenderOf(chain, lockupA, fromHeight), spenderOf(chain, lockupB, fromHeight), Promise.resolve(spendsD[0].txid)]);
        let expected = operatorBefore;
        for (const [txid, value] of [[claims[0], lockupA.value], [claims[1], lockupB.value], [claims[2], BigInt(d.lockupDetails.amount)]] as const) {
          expected += value - (await chain.fee(txid));
        }
        for (const lockup of [lockupC, lockupE]) expected -= lockup.value + (await chain.fee(lockup.txid));
        assert.equal(await chain.balance(chain.operator), expected, 'the operator wallet moved by each claim and lockup once');
      } catch (error) {
        (error as Error).message += `\nthe restored Ferry's last log lines:\n${ferry.process.lines.slice(-80).join('\n')}`;
        throw error;
      } finally {
        wallet.close();
        ferry.process.child.kill('SIGTERM');
        await ferry.process.exited;
      }
    },
  };
}

async function spenderOf(chain: DevnetChain, lockup: Lockup, fromHeight: number): Promise<string> {
  return (await chain.spendsOf(lockup.txid, lockup.vout, fromHeight))[0].txid;
}

async function reverseLockupOf(wallet: SwapWallet, swap: ReverseSwap): Promise<Lockup> {
  const { hex: lockupHex } = await wallet.api.expect('GET', `/v2/swap/reverse/${swap.id}/transaction`, undefined, 200);
  return wallet.reverseLockup(swap, lockupHex);
}

async function serverLockupOf(apiUrl: string, id: string): Promise<string> {
  const transactions = (await (await fetch(`${apiUrl}/v2/swap/chain/${id}/transactions`)).json()) as { serverLock: { transaction: { id: string } } };
  return transactions.serverLock.transaction.id;
}

async function statuses(apiUrl: string, swaps: { id: string }[]): Promise<string[]> {
  return Promise.all(swaps.map(async (swap) => ((await (await fetch(`${apiUrl}/v2/swap/${swap.id}`)).json()) as { status: string }).status));
}

/** Waits for the swap's status to be `wanted`, as the API says (a generous hang guard: catching up is work). */
async function untilStatus(apiUrl: string, id: string, wanted: string, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let status = '';
  while (status !== wanted) {
    if (Date.now() > deadline) throw new Error(`swap ${id} is ${status}, not ${wanted}`);
    const answer = await fetch(`${apiUrl}/v2/swap/${id}`).then((response) => response.json() as Promise<{ status?: string }>, () => ({}) as { status?: string });
    status = answer.status ?? '';
    if (status !== wanted) await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
