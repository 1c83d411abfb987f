// Power cuts at the worst moments: the devnet runs as its own process, Ferry as another one that SIGKILLs
// itself at a named point of a swap (FERRY_CRASH_AT). Ferry is then restarted without the fault, the swap is
// finished, and the effects are counted: alice's invoice paid exactly once (channel balances moved once, one
// payment recorded by the node), the reverse lockup sent exactly once (one transaction pays the lockup
// address, the operator wallet dropped once), a chain swap's user lockup claimed exactly once (one spend, the
// operator wallet credited once).
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { OutScript, Transaction } from '@scure/btc-signer';
import { OutputType, constructClaimTransaction, type ClaimDetails } from 'boltz-core';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { useDevnetProcess, type RunningFerry } from '../helpers/devnet-process.ts';
import { SwapWallet } from '../helpers/swap-wallet.ts';
import { DevnetChain } from './scenarios/support/chain.ts';
import { LiquidChain } from './scenarios/support/liquid-chain.ts';
import { LiquidSwapWallet } from '../helpers/liquid-swap-wallet.ts';
import { boltzCore4 } from '../helpers/liquid-boltz-core-4.ts';
import { LightningNodes } from './scenarios/support/lightning.ts';
import { claimReverseLockedOnce } from './scenarios/support/reverse-once.ts';
import { createBtcToLbtc, lockBtc, scriptPathClaimOf } from '../engine/chain-support.ts';

const devnet = useDevnetProcess('ferry-crash-');
let ferryDir: string;
let configFile: string;
/** Ferry's config for the chain swap claim tests: its claim follows one second after it learns the preimage. */
let quickClaimConfigFile: string;
/** Ferry's config with the v1 miner fee prepay. */
let prepayConfigFile: string;
let info: DevnetInfo;
let chain: DevnetChain;
let liquid: LiquidChain;
let lightning: LightningNodes;

before(async () => {
  await devnet.ready;
  ferryDir = join(devnet.root, 'ferry');
  mkdirSync(ferryDir);
  configFile = join(ferryDir, 'ferry.toml');
  // A quick watcher; everything else is Ferry's defaults.
  writeFileSync(configFile, '[bitcoin]\npollIntervalMs = 150\n[liquid]\npollIntervalMs = 150\n');
  prepayConfigFile = join(ferryDir, 'ferry-prepay.toml');
  writeFileSync(prepayConfigFile, '[bitcoin]\npollIntervalMs = 150\n[liquid]\npollIntervalMs = 150\n[swap]\nprepayMinerFee = true\n');
  quickClaimConfigFile = join(ferryDir, 'ferry-quick-claim.toml');
  writeFileSync(quickClaimConfigFile, '[bitcoin]\npollIntervalMs = 150\n[liquid]\npollIntervalMs = 150\n[swap]\nclaimDelayMs = 1000\n');
  info = devnet.info;
  chain = new DevnetChain(info);
  liquid = new LiquidChain(info);
  lightning = new LightningNodes(info);
});

/** `ferry start` against the devnet process, as an operator with external nodes runs it. */
const startFerryProcess = (crashAt?: string, config = configFile): Promise<RunningFerry> =>
  devnet.startFerry({ FERRY_CONFIG: config, FERRY_DATA_DIR: ferryDir, FERRY_CRASH_AT: crashAt ?? '' });

async function stopFerry(ferry: RunningFerry): Promise<void> {
  ferry.process.child.kill('SIGTERM');
  assert.equal(await ferry.process.exited, 0, ferry.process.lines.join('\n'));
}

/** Waits for Ferry to kill itself at `point`; fails if it never gets there. */
async function untilCrash(ferry: RunningFerry, point: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Ferry never reached crash point ${point}; output:\n${ferry.process.lines.slice(-30).join('\n')}`)),
      15_000,
    );
  });
  try {
    await Promise.race([ferry.process.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
  assert.equal(ferry.process.child.signalCode, 'SIGKILL');
  assert.ok(ferry.process.lines.some((line) => line.includes(`FERRY_CRASH_AT=${point}`)), 'killed at the named point');
}

/** A swap's status as Ferry's API gives it, once it is `wanted`. */
async function untilStatusOf(apiUrl: string, id: string, wanted: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  let status = '';
  while (status !== wanted) {
    status = ((await (await fetch(`${apiUrl}/v2/swap/${id}`)).json()) as { status: string }).status;
    if (Date.now() > deadline) throw new Error(`swap ${id} is ${status}, not ${wanted}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The txid of Ferry's lockup of a chain swap, once it is sent. */
async function untilServerLockup(apiUrl: string, id: string): Promise<string> {
  await untilStatusOf(apiUrl, id, 'transaction.server.mempool');
  const transactions = (await (await fetch(`${apiUrl}/v2/swap/chain/${id}/transactions`)).json()) as { serverLock: { transaction: { id: string } } };
  return transactions.serverLock.transaction.id;
}

/** Payments Ferry's node lists for a hash (in-flight ones included). */
const recordedPayments = (paymentHash: string): Promise<number> => lightning.paymentCount('ferry', paymentHash);

describe('crash recovery', { timeout: 900_000 }, () => {
  for (const point of ['submarine.lockup-seen', 'submarine.payment-in-flight']) {
    test(`submarine swap survives a crash at ${point}; the invoice is paid exactly once`, async () => {
      const amount = 40_000;
      const crashing = await startFerryProcess(point);
      const first = await SwapWallet.open({ apiUrl: crashing.apiUrl, devnet: info });
      const { invoice, paymentHash } = await lightning.addInvoice('alice', amount);
      const [aliceBefore, ferryBefore] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry')]);
      const swap = await first.createSubmarine({ invoice });
      const fromHeight = (await chain.height()) + 1;
      const lockup = await first.fund(swap, swap.expectedAmount!);
      await chain.mine(1);
      await untilCrash(crashing, point);
      first.close();

      const ferry = await startFerryProcess();
      const wallet = await SwapWallet.open({ apiUrl: ferry.apiUrl, devnet: info });
      try {
        await wallet.status.subscribe(swap.id);
        await wallet.status.waitFor(swap.id, 'transaction.claim.pending');
        await wallet.cooperativeClaim(swap);
        await wallet.status.waitFor(swap.id, 'transaction.claimed');
        await chain.mine(1);

        const [aliceAfter, ferryAfter] = await Promise.all([lightning.balance('alice'), lightning.balance('ferry')]);
        assert.equal(aliceAfter.localMsat - aliceBefore.localMsat, BigInt(amount) * 1000n, 'alice was paid once');
        assert.equal(ferryBefore.localMsat - ferryAfter.localMsat, BigInt(amount) * 1000n, "Ferry's node paid once");
        assert.equal((await lightning.invoice('alice', paymentHash)).amountPaidMsat, BigInt(amount) * 1000n);
        assert.equal((await lightning.payment('ferry', paymentHash))?.status, 'SUCCEEDED');
        assert.equal(await recordedPayments(paymentHash), 1, 'the node has one payment for the invoice');
        const spends = await chain.spendsOf(lockup.txid, lockup.vout, fromHeight);
        assert.equal(spends.length, 1, 'the lockup was claimed once');
      } finally {
        wallet.close();
        await stopFerry(ferry);
      }
    });
  }

  for (const point of ['reverse.invoice-accepted', 'reverse.lockup-broadcast']) {
    test(`reverse swap survives a crash at ${point}; the lockup is sent exactly once`, async () => {
      const amount = 70_000;
      const crashing = await startFerryProcess(point);
      const first = await SwapWallet.open({ apiUrl: crashing.apiUrl, devnet: info });
      const [aliceBefore, operatorBefore] = await Promise.all([lightning.balance('alice'), chain.balance(chain.operator)]);
      const swap = await first.createReverse(amount);
      const fromHeight = (await chain.height()) + 1;
      const payment = lightning.pay('alice', swap.invoice);
      await untilCrash(crashing, point);
      first.close();

      const ferry = await startFerryProcess();
      const wallet = await SwapWallet.open({ apiUrl: ferry.apiUrl, devnet: info });
      try {
        await wallet.status.subscribe(swap.id);
        await wallet.status.waitFor(swap.id, 'transaction.mempool');
        await claimReverseLockedOnce(wallet, swap, payment, { chain, lightning }, { amount, fromHeight, operatorBefore, aliceBefore });
      } finally {
        wallet.close();
        await stopFerry(ferry);
      }
    });
  }
  // The miner fee prepay (v1): two invoices held, Ferry dies around its lock; after the restart it locks once and
  // settles the miner fee invoice once, and the client's claim through the redeem script settles the swap's.
  for (const point of ['reverse.invoice-accepted', 'reverse.lockup-broadcast']) {
    test(`a v1 reverse swap with the miner fee prepay survives a crash at ${point}; one lockup, each invoice paid once`, async () => {
      const crashing = await startFerryProcess(point, prepayConfigFile);
      const preimage = randomBytes(32);
      const claimKey = secp256k1.utils.randomSecretKey();
      const created = await fetch(`${crashing.apiUrl}/createswap`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'reversesubmarine',
          pairId: 'BTC/BTC',
          orderSide: 'buy',
          invoiceAmount: 80_000,
          preimageHash: hex.encode(sha256(preimage)),
          claimPublicKey: hex.encode(secp256k1.getPublicKey(claimKey, true)),
        }),
      });
      assert.equal(created.status, 201);
      const swap = (await created.json()) as { id: string; invoice: string; minerFeeInvoice: string; redeemScript: string; lockupAddress: string; onchainAmount: number };
      const outputScript = OutScript.encode({ type: 'wsh', hash: sha256(hex.decode(swap.redeemScript)) });
      const fromHeight = (await chain.height()) + 1;
      const operatorBefore = await chain.balance(chain.operator);
      const feePayment = lightning.pay('alice', swap.minerFeeInvoice);
      await untilStatusOf(crashing.apiUrl, swap.id, 'minerfee.paid');
      const payment = lightning.pay('alice', swap.invoice);
      await untilCrash(crashing, point);

      const ferry = await startFerryProcess(undefined, prepayConfigFile);
      try {
        await untilStatusOf(ferry.apiUrl, swap.id, 'transaction.mempool');
        const status = (await (await fetch(`${ferry.apiUrl}/swapstatus`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: swap.id }) })).json()) as {
          transaction: { id: string; hex: string };
        };
        const lockupTx = Transaction.fromRaw(hex.decode(status.transaction.hex), { allowUnknownOutputs: true });
        let vout = -1;
        for (let i = 0; i < lockupTx.outputsLength; i++) if (hex.encode(lockupTx.getOutput(i).script!) === hex.encode(outputScript)) vout = i;
        assert.equal(lockupTx.getOutput(vout).amount, BigInt(swap.onchainAmount));
        const claim = constructClaimTransaction(
          [{ type: OutputType.Bech32, redeemScript: hex.decode(swap.redeemScript), preimage, privateKey: claimKey, transactionId: status.transaction.id, vout, script: outputScript, amount: BigInt(swap.onchainAmount) } as unknown as ClaimDetails],
          OutScript.encode({ type: 'wsh', hash: sha256(randomBytes(32)) }),
          400n,
          true,
        );
        const broadcast = await fetch(`${ferry.apiUrl}/broadcasttransaction`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ currency: 'BTC', transactionHex: hex.encode(claim.toBytes(true, true)) }) });
        assert.equal(broadcast.status, 200, await broadcast.text());
        await untilStatusOf(ferry.apiUrl, swap.id, 'invoice.settled');
        assert.equal((await payment).status, 'SUCCEEDED');
        assert.equal((await feePayment).status, 'SUCCEEDED', 'the miner fee invoice was settled with the lock');
        await chain.mine(1);
        const lockups = await chain.paymentsTo(outputScript, fromHeight);
        assert.deepEqual(lockups.map((tx) => tx.txid), [status.transaction.id], 'exactly one transaction pays the lockup address');
        const fee = await chain.fee(status.transaction.id);
        assert.equal(await chain.balance(chain.operator), operatorBefore - BigInt(swap.onchainAmount) - fee, 'the operator wallet paid once');
        assert.equal((await lightning.invoice('ferry', decodeBolt11(swap.minerFeeInvoice).paymentHash)).state, 'SETTLED');
      } finally {
        await stopFerry(ferry);
      }
    });
  }

  test('a Liquid reverse swap survives a crash between its lockup broadcast and its record; the blinded lockup is sent once', async () => {
    const point = 'reverse.lockup-broadcast';
    const amount = 60_000;
    const crashing = await startFerryProcess(point);
    const first = await LiquidSwapWallet.open({ apiUrl: crashing.apiUrl, devnet: info, library: boltzCore4 });
    const operatorBefore = await liquid.balance(liquid.operator);
    const swap = await first.createReverse(amount);
    const fromHeight = (await liquid.height()) + 1;
    const payment = lightning.pay('alice', swap.invoice);
    await untilCrash(crashing, point);
    first.close();

    const ferry = await startFerryProcess();
    const wallet = await LiquidSwapWallet.open({ apiUrl: ferry.apiUrl, devnet: info, library: boltzCore4 });
    try {
      await wallet.status.subscribe(swap.id);
      await wallet.status.waitFor(swap.id, 'transaction.mempool');
      const { hex: lockupHex } = await wallet.api.expect('GET', `/v2/swap/reverse/${swap.id}/transaction`, undefined, 200);
      const lockup = wallet.reverseLockup(swap, lockupHex);
      await wallet.cooperativeReverseClaim(swap, lockup, await wallet.destination());
      await wallet.status.waitFor(swap.id, 'invoice.settled');
      assert.equal((await payment).status, 'SUCCEEDED');
      await liquid.mine(1);

      const lockups = await liquid.paymentsTo(swap.outputScript, fromHeight);
      assert.deepEqual(lockups.map((tx) => tx.txid), [lockup.txid], 'exactly one transaction pays the lockup address');
      const lockupFee = await liquid.fee(lockup.txid);
      assert.equal(await liquid.balance(liquid.operator), operatorBefore - lockup.value - lockupFee, 'the operator wallet paid once');
    } finally {
      wallet.close();
      await stopFerry(ferry);
    }
  });
  for (const point of ['reverse.invoice-accepted', 'reverse.lockup-broadcast']) {
    test(`a BTC -> L-BTC chain swap survives a crash at ${point} (between the two lockups); Ferry locks exactly once`, async () => {
      const crashing = await startFerryProcess(point);
      const preimageHash = hex.encode(randomBytes(32));
      const key = hex.encode(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
      const response = await fetch(`${crashing.apiUrl}/v2/swap/chain`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ from: 'BTC', to: 'L-BTC', preimageHash, claimPublicKey: key, refundPublicKey: key, userLockAmount: 80_000 }),
      });
      const created = (await response.json()) as { id: string; claimDetails: { lockupAddress: string; amount: number }; lockupDetails: { lockupAddress: string } };
      assert.equal(response.status, 201, JSON.stringify(created));
      const fromHeight = (await liquid.height()) + 1;
      const operatorBefore = await liquid.balance(liquid.operator);
      await chain.user.sendToAddress(created.lockupDetails.lockupAddress, 0.0008);
      await chain.mine(1);
      await untilCrash(crashing, point);

      const ferry = await startFerryProcess();
      try {
        const deadline = Date.now() + 20_000;
        let status = '';
        while (status !== 'transaction.server.mempool') {
          status = ((await (await fetch(`${ferry.apiUrl}/v2/swap/${created.id}`)).json()) as { status: string }).status;
          if (Date.now() > deadline) throw new Error(`swap is ${status}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        const transactions = (await (await fetch(`${ferry.apiUrl}/v2/swap/chain/${created.id}/transactions`)).json()) as { serverLock: { transaction: { id: string } } };
        await liquid.mine(1);
        const script = (await liquid.user.call<{ scriptPubKey: string }>('getaddressinfo', [created.claimDetails.lockupAddress])).scriptPubKey;
        const lockups = await liquid.paymentsTo(Buffer.from(script, 'hex'), fromHeight);
        assert.deepEqual(lockups.map((tx) => tx.txid), [transactions.serverLock.transaction.id], 'exactly one transaction pays Ferry\'s lockup address');
        const fee = await liquid.fee(transactions.serverLock.transaction.id);
        assert.equal(await liquid.balance(liquid.operator), operatorBefore - BigInt(created.claimDetails.amount) - fee, 'the operator wallet paid once');
      } finally {
        await stopFerry(ferry);
      }
    });
  }

  // The client claims Ferry's L-BTC through the claim leaf (the preimage on chain); Ferry dies before its claim of
  // the user's BTC is recorded: having only read the preimage, or having broadcast the claim too.
  for (const point of ['server-lockup.preimage-seen', 'user-lockup.claim-broadcast']) {
    test(`a BTC -> L-BTC chain swap survives a crash at ${point} (between the client's claim and Ferry's); Ferry claims the user's lockup exactly once`, async () => {
      const crashing = await startFerryProcess(point, quickClaimConfigFile);
      const client = { apiUrl: crashing.apiUrl, bitcoin: chain.rpc, bitcoinUser: chain.user, elements: liquid.rpc, elementsUser: liquid.user };
      const swap = await createBtcToLbtc(client, 90_000);
      const fromHeight = (await chain.height()) + 1;
      const operatorBefore = await chain.balance(chain.operator);
      const lockup = await lockBtc(client, swap);
      await chain.mine(1);
      const serverLock = await untilServerLockup(crashing.apiUrl, swap.id);
      const userBefore = await liquid.balance(liquid.user);
      const claim = await scriptPathClaimOf(client, swap, serverLock);
      await liquid.rpc.sendRawTransaction(claim.hex);
      await untilCrash(crashing, point);

      const ferry = await startFerryProcess(undefined, quickClaimConfigFile);
      try {
        await untilStatusOf(ferry.apiUrl, swap.id, 'transaction.claimed');
        await chain.mine(1);
        await liquid.mine(1);
        const spends = await chain.spendsOf(lockup.txid, lockup.vout, fromHeight);
        assert.equal(spends.length, 1, "the user's lockup was claimed once");
        assert.ok(spends[0].witness.includes(hex.encode(swap.preimage)), 'through the claim leaf, with the preimage the client revealed');
        assert.equal(spends[0].height, fromHeight + 1, 'and the claim is in a block');
        const fee = await chain.fee(spends[0].txid);
        assert.equal(await chain.balance(chain.operator), operatorBefore + BigInt(swap.lockupDetails.amount) - fee, "Ferry's wallet received the lockup once, less its claim fee");
        assert.equal(await liquid.balance(liquid.user), userBefore + claim.amount, "the client received Ferry's L-BTC less its claim fee");
        const stored = await (await fetch(`${ferry.apiUrl}/v2/swap/${swap.id}`)).json();
        assert.deepEqual(stored, { status: 'transaction.claimed' });
        // The claim broadcast before the crash is the one on record, not a claim without a transaction.
        const db = new Database(join(ferryDir, 'ferry.sqlite'), { readonly: true });
        try {
          const row = db.prepare('SELECT data FROM swaps WHERE id = ?').get(swap.id) as { data: string };
          assert.equal((JSON.parse(row.data) as { claimTransaction?: { txid: string } }).claimTransaction?.txid, spends[0].txid);
        } finally {
          db.close();
        }
      } finally {
        await stopFerry(ferry);
      }
    });
  }
});
