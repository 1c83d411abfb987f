// Chain swaps with the client SDK against a live Ferry (devnet Bitcoin and Elements nodes, engine, API): BTC → L-BTC
// and L-BTC → BTC, claimed cooperatively and alone; an underpaid lockup requoted and claimed, or refunded; a
// zero-amount swap. Asserted on both chains: which transaction spent each lockup and how, what each wallet got.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { FileClientStore, SwapClient, chainMinimalServerAmount, readRefundFile, type ChainRecord, type FollowEvent } from '@ferry/sdk/client/node.js';
import { followToEnd, startService, temporaryDir, type Service } from './support.ts';

type Currency = 'BTC' | 'L-BTC';

describe('chain swaps with the client SDK', () => {
  let service: Service;
  let client: SwapClient;
  let store: FileClientStore;

  before(async () => {
    service = await startService({ FERRY_SWAP_CLAIM_DELAY_MS: '2000' });
    store = new FileClientStore(temporaryDir('ferry-client-chain-'));
    client = new SwapClient({ serviceUrl: service.apiUrl, network: 'regtest', store });
  });
  after(async () => {
    await service?.close();
  });

  /** Fresh addresses of the user's wallets: the claim pays on `to`, a refund on `from`. */
  const destinations = async (from: Currency, to: Currency) => ({
    [from]: await service.chains[from].user.getNewAddress(),
    [to]: await service.chains[to].user.getNewAddress(),
  });

  /** Follows the swap while mining a block of `from` whenever our lockup waits for one. */
  async function followMining(record: ChainRecord, options: { cooperative?: boolean; acceptQuote?: boolean; destination: Record<string, string> }) {
    const events: FollowEvent[] = [];
    const mined = new Set<string>();
    const result = await followToEnd(client, record, {
      ...options,
      retryMs: 500,
      onEvent: (event) => {
        if (process.env.DEBUG_FOLLOW) console.error(JSON.stringify(event, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)).slice(0, 300));
        events.push(event);
        // A block for our lockup, and one for what the quote waits on; the service's lockup is claimed unconfirmed.
        const status = event.type === 'status' ? event.update.status : undefined;
        if ((status === 'transaction.mempool' || status === 'transaction.lockupFailed') && !mined.has(status)) {
          mined.add(status);
          void service.chains[record.currency as Currency].mine();
        }
      },
    });
    return { ...result, events };
  }

  /** Inputs of a transaction on a chain: which outputs it spent, and its witnesses. */
  async function inputsOf(currency: Currency, txid: string) {
    const tx = await service.chains[currency].node.getRawTransaction(txid);
    return tx.vin.map((input) => ({ txid: input.txid, vout: input.vout, witness: input.txinwitness ?? [] }));
  }

  for (const [from, to, cooperative] of [
    ['BTC', 'L-BTC', true],
    ['L-BTC', 'BTC', false],
  ] as const) {
    test(`${from} → ${to}, ${cooperative ? 'claimed through the key path with the service' : 'claimed alone through the claim leaf'}: the user gets the service's lockup, the service the user's`, async () => {
      const amount = 120_000;
      const fromChain = service.chains[from];
      const toChain = service.chains[to];
      const record = await client.createChain({ from, to, userLockAmount: amount });
      assert.ok(record.refundFiles && readRefundFile(record.refundFiles.json).type === 'chain', 'a refund file for our lockup is written first');
      assert.ok(record.serverLockAmount >= chainMinimalServerAmount(amount, record.pair));
      const toBefore = await toChain.userBalance();
      const lockupTxid = await fromChain.user.sendToAddress(record.lockupAddress, satToBtc(amount));

      const { result, events } = await followMining(record, { cooperative, destination: await destinations(from, to) });
      assert.equal(result.success, true, result.message);
      assert.equal(result.status, 'transaction.claimed');
      const claimed = events.find((event) => event.type === 'claimed');
      assert.ok(claimed?.type === 'claimed');
      assert.equal(claimed.claim.path, cooperative ? 'key' : 'script');
      assert.equal(Number(claimed.claim.amount + claimed.claim.fee), record.serverLockAmount, 'the claim spends exactly what the service agreed to lock');

      // Our claim spent the service's lockup; the service's claim spent ours, the way its path says.
      const stored = store.load(record.id) as ChainRecord;
      const [ours] = await inputsOf(to, claimed.claim.txid);
      assert.equal(ours.txid, stored.claimSide.lockup?.txid, "our claim spends the service's lockup");
      assert.equal(ours.witness.length, cooperative ? 1 : 4, cooperative ? 'one aggregated signature' : 'signature, preimage, leaf and control block');
      const serviceClaim = ((await service.ferry.storage.swaps.get(record.id))?.data as { claimTransaction?: { txid: string } }).claimTransaction?.txid;
      assert.ok(serviceClaim, 'the service claimed our lockup');
      const [theirs] = await inputsOf(from, serviceClaim);
      assert.equal(theirs.txid, lockupTxid, 'its claim spends our lockup');
      assert.equal(theirs.witness.length, cooperative ? 1 : 4, cooperative ? 'with our signature: the key path' : 'with the preimage read off our claim');

      await toChain.mine();
      assert.equal((await toChain.userBalance()) - toBefore, claimed.claim.amount, 'the user wallet on the other chain got the claim');
      const statuses = stored.history.map((entry) => entry.status);
      assert.equal(statuses.at(-1), 'transaction.claimed');
      assert.ok(statuses.indexOf('transaction.server.mempool') > statuses.indexOf('transaction.mempool'), statuses.join(', '));
    });
  }

  test('an underpaid lockup: the client accepts the quote for what it locked, and claims that amount', async () => {
    const record = await client.createChain({ from: 'BTC', to: 'L-BTC', userLockAmount: 100_000 });
    const sent = 90_000;
    await service.user.sendToAddress(record.lockupAddress, satToBtc(sent));
    const { result, events } = await followMining(record, { destination: await destinations('BTC', 'L-BTC') });
    assert.equal(result.success, true, result.message);
    const quoted = events.find((event) => event.type === 'quoted');
    assert.ok(quoted?.type === 'quoted', 'a quote was accepted');
    assert.ok(quoted.amount < record.serverLockAmount && quoted.amount >= chainMinimalServerAmount(sent, record.pair), `quote ${quoted.amount} for ${sent}`);
    const claimed = events.find((event) => event.type === 'claimed');
    assert.ok(claimed?.type === 'claimed');
    assert.equal(Number(claimed.claim.amount + claimed.claim.fee), quoted.amount, 'the service locked the quoted amount, which we claimed');
    assert.equal((store.load(record.id) as ChainRecord).quote?.amount, quoted.amount);
  });

  test('an underpaid lockup, quote declined: the client refunds its lockup through the key path at once', async () => {
    const record = await client.createChain({ from: 'BTC', to: 'L-BTC', userLockAmount: 100_000 });
    const sent = 95_000;
    const lockupTxid = await service.user.sendToAddress(record.lockupAddress, satToBtc(sent));
    const refundAddress = await service.user.getNewAddress();
    const before = await service.userBalance();
    const { result, events } = await followMining(record, { acceptQuote: false, destination: { BTC: refundAddress, 'L-BTC': await service.liquid.user.getNewAddress() } });
    assert.equal(result.success, false);
    const refunded = events.find((event) => event.type === 'refunded');
    assert.ok(refunded?.type === 'refunded', result.message);
    assert.equal(refunded.refund.path, 'key', 'signed with the service, before any timeout');
    assert.equal(Number(refunded.refund.amount + refunded.refund.fee), sent);
    const [input] = await inputsOf('BTC', refunded.refund.txid);
    assert.equal(input.txid, lockupTxid, 'the refund spends our lockup');
    await service.mine();
    assert.equal((await service.userBalance()) - before, refunded.refund.amount, 'and pays the user wallet');
    const transactions = (await (await fetch(`${service.apiUrl}/v2/swap/chain/${record.id}/transactions`)).json()) as { serverLock?: unknown };
    assert.equal(transactions.serverLock, undefined, 'the service never locked');
  });

  test('a zero-amount swap: the service prices what the client locks, and the client claims no less than the advertised terms give', async () => {
    const record = await client.createChain({ from: 'L-BTC', to: 'BTC' });
    assert.equal(record.userLockAmount, 0);
    assert.equal(record.bip21, undefined, 'no amount to ask for');
    const sent = 150_000;
    await service.liquid.user.sendToAddress(record.lockupAddress, satToBtc(sent));
    const { result, events } = await followMining(record, { destination: await destinations('L-BTC', 'BTC') });
    assert.equal(result.success, true, result.message);
    const claimed = events.find((event) => event.type === 'claimed');
    assert.ok(claimed?.type === 'claimed');
    assert.ok(Number(claimed.claim.amount + claimed.claim.fee) >= chainMinimalServerAmount(sent, record.pair), 'priced by the terms at creation');
  });
});
