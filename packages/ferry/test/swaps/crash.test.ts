// Power cuts at the worst moments: the devnet runs as its own process, Ferry as another one that SIGKILLs
// itself at a named point of a swap (FERRY_CRASH_AT). Ferry is then restarted without the fault, the swap is
// finished, and the effects are counted: alice's invoice paid exactly once (channel balances moved once, one
// payment recorded by the node), the reverse lockup sent exactly once (one transaction pays the lockup
// address, the operator wallet dropped once). The chain swaps' crashes, which never reach Ferry's Lightning node, are
// in crash-chain.test.ts: it runs once, this file on both nodes.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { OutScript, Transaction } from '@scure/btc-signer';
import { OutputType, constructClaimTransaction, type ClaimDetails } from 'boltz-core';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { stopFerry, untilCrash, untilStatusOf, useCrashWorld } from './crash-support.ts';
import { SwapWallet } from '../helpers/swap-wallet.ts';
import { DevnetChain } from './scenarios/support/chain.ts';
import { LiquidChain } from './scenarios/support/liquid-chain.ts';
import { LiquidSwapWallet } from '../helpers/liquid-swap-wallet.ts';
import { boltzCore4 } from '../helpers/liquid-boltz-core-4.ts';
import { LightningNodes } from './scenarios/support/lightning.ts';
import { claimReverseLockedOnce } from './scenarios/support/reverse-once.ts';

const crash = useCrashWorld('ferry-crash-');
const { startFerryProcess } = crash;
let info: DevnetInfo;
let chain: DevnetChain;
let liquid: LiquidChain;
let lightning: LightningNodes;
let prepayConfigFile: string;

before(async () => {
  await crash.ready;
  ({ info, chain, liquid, lightning, prepayConfigFile } = crash);
});

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
});
