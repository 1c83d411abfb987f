// Power cuts in chain swaps (BTC -> L-BTC): Ferry runs as a process that SIGKILLs itself at a named point
// (FERRY_CRASH_AT) against `ferry devnet` run as its own; restarted without the fault, it finishes the swap, and the
// effects are counted: Ferry's lockup sent exactly once between the two lockups (one transaction pays its lockup
// address, the operator wallet dropped once), the user's lockup claimed exactly once after the client's claim (one
// spend, in a block, with the client's preimage; the operator wallet credited once; the broadcast claim the one on
// record). No Lightning payment is part of a chain swap, so this file is not in the Lightning matrix: it runs once,
// with Ferry on LND (crash.test.ts, the swaps through Ferry's node, runs on both).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { hex } from '@scure/base';
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createBtcToLbtc, lockBtc, scriptPathClaimOf } from '../engine/chain-support.ts';
import { stopFerry, untilCrash, untilServerLockup, untilStatusOf, useCrashWorld } from './crash-support.ts';

const crash = useCrashWorld('ferry-crash-chain-');
const { startFerryProcess } = crash;

describe('crash recovery of chain swaps', { timeout: 900_000 }, () => {
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
      const fromHeight = (await crash.liquid.height()) + 1;
      const operatorBefore = await crash.liquid.balance(crash.liquid.operator);
      await crash.chain.user.sendToAddress(created.lockupDetails.lockupAddress, 0.0008);
      await crash.chain.mine(1);
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
        await crash.liquid.mine(1);
        const script = (await crash.liquid.user.call<{ scriptPubKey: string }>('getaddressinfo', [created.claimDetails.lockupAddress])).scriptPubKey;
        const lockups = await crash.liquid.paymentsTo(Buffer.from(script, 'hex'), fromHeight);
        assert.deepEqual(lockups.map((tx) => tx.txid), [transactions.serverLock.transaction.id], 'exactly one transaction pays Ferry\'s lockup address');
        const fee = await crash.liquid.fee(transactions.serverLock.transaction.id);
        assert.equal(await crash.liquid.balance(crash.liquid.operator), operatorBefore - BigInt(created.claimDetails.amount) - fee, 'the operator wallet paid once');
      } finally {
        await stopFerry(ferry);
      }
    });
  }

  // The client claims Ferry's L-BTC through the claim leaf (the preimage on crash.chain); Ferry dies before its claim of
  // the user's BTC is recorded: having only read the preimage, or having broadcast the claim too.
  for (const point of ['server-lockup.preimage-seen', 'user-lockup.claim-broadcast']) {
    test(`a BTC -> L-BTC chain swap survives a crash at ${point} (between the client's claim and Ferry's); Ferry claims the user's lockup exactly once`, async () => {
      const crashing = await startFerryProcess(point, crash.quickClaimConfigFile);
      const client = { apiUrl: crashing.apiUrl, bitcoin: crash.chain.rpc, bitcoinUser: crash.chain.user, elements: crash.liquid.rpc, elementsUser: crash.liquid.user };
      const swap = await createBtcToLbtc(client, 90_000);
      const fromHeight = (await crash.chain.height()) + 1;
      const operatorBefore = await crash.chain.balance(crash.chain.operator);
      const lockup = await lockBtc(client, swap);
      await crash.chain.mine(1);
      const serverLock = await untilServerLockup(crashing.apiUrl, swap.id);
      const userBefore = await crash.liquid.balance(crash.liquid.user);
      const claim = await scriptPathClaimOf(client, swap, serverLock);
      await crash.liquid.rpc.sendRawTransaction(claim.hex);
      await untilCrash(crashing, point);

      const ferry = await startFerryProcess(undefined, crash.quickClaimConfigFile);
      try {
        await untilStatusOf(ferry.apiUrl, swap.id, 'transaction.claimed');
        await crash.chain.mine(1);
        await crash.liquid.mine(1);
        const spends = await crash.chain.spendsOf(lockup.txid, lockup.vout, fromHeight);
        assert.equal(spends.length, 1, "the user's lockup was claimed once");
        assert.ok(spends[0].witness.includes(hex.encode(swap.preimage)), 'through the claim leaf, with the preimage the client revealed');
        assert.equal(spends[0].height, fromHeight + 1, 'and the claim is in a block');
        const fee = await crash.chain.fee(spends[0].txid);
        assert.equal(await crash.chain.balance(crash.chain.operator), operatorBefore + BigInt(swap.lockupDetails.amount) - fee, "Ferry's wallet received the lockup once, less its claim fee");
        assert.equal(await crash.liquid.balance(crash.liquid.user), userBefore + claim.amount, "the client received Ferry's L-BTC less its claim fee");
        const stored = await (await fetch(`${ferry.apiUrl}/v2/swap/${swap.id}`)).json();
        assert.deepEqual(stored, { status: 'transaction.claimed' });
        // The claim broadcast before the crash is the one on record, not a claim without a transaction.
        const db = new Database(join(crash.ferryDir, 'ferry.sqlite'), { readonly: true });
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
