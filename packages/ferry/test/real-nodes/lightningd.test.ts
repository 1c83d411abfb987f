// Real Core Lightning daemons on the devnet's Bitcoin node: what lightningd does on our chain must be what it does
// on bitcoind's. Funding (to lightningd's Taproot wallet), one transaction opening two channels, BOLT11 and BOLT12
// payments moving channel balances, a mutual and a unilateral close confirming, and their outputs reaching the
// nodes' wallets. Skips, saying why, without the binaries (scripts/real-nodes.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { realLightningd, startRealWorld, waitFor, type PeerChannel, type RealNode, type RealWorld } from './world.ts';

const binaries = realLightningd();
// Each test skips on its own, not the describe: a skipped describe registers none of its tests, so a run without the
// binaries would count fewer tests and no skips.
const CHANNEL_SAT = 1_000_000;

interface RawTx {
  txid: string;
  confirmations?: number;
  blockhash?: string;
  vin: { txid: string; vout: number }[];
  vout: { value: number; n: number }[];
}

describe('real lightningd on the devnet chain', () => {
  let world: RealWorld;
  let alice: RealNode, bob: RealNode, carol: RealNode;
  let funding: string;

  const tx = (txid: string) => world.node.call<RawTx>('getrawtransaction', [txid, true]);
  const channelWith = async (node: RealNode, peer: RealNode): Promise<PeerChannel> => {
    const channel = (await node.channels()).find((c) => c.peer_id === peer.id);
    assert.ok(channel, `${node.name} has a channel with ${peer.name}`);
    return channel;
  };
  /** Waits until `node`'s wallet holds a confirmed output of `closeTxid` or of a transaction spending it. */
  const walletGetsOutputOf = (node: RealNode, closeTxid: string) =>
    waitFor(`${node.name}'s wallet to hold an output of ${closeTxid} or of its sweep`, async () => {
      for (const output of await node.outputs()) {
        if (output.status !== 'confirmed') continue;
        if (output.txid === closeTxid) return output;
        if ((await tx(output.txid)).vin.some((input) => input.txid === closeTxid)) return output;
      }
      return undefined;
    });

  before(async () => {
    if (binaries.skip) return;
    // carol asks alice's side of their channel to wait only 6 blocks before a unilateral close pays it.
    world = await startRealWorld(binaries.lightningd!, [{ name: 'alice' }, { name: 'bob' }, { name: 'carol', options: ['--watchtime-blocks=6'] }]);
    ({ alice, bob, carol } = world.nodes);
    await world.fund(alice, 3 * CHANNEL_SAT);
    funding = (await world.openChannels(alice, [bob, carol], CHANNEL_SAT)).txid;
  });
  after(async () => {
    await world?.close();
  });

  test('one funding transaction opens two channels: confirmed on the devnet chain, CHANNELD_NORMAL on both sides', { skip: binaries.skip }, async () => {
    const fundingTx = await tx(funding);
    assert.ok((fundingTx.confirmations ?? 0) >= 6, `funding has ${fundingTx.confirmations} confirmations`);
    const height = (await world.node.call<{ height: number }>('getblockheader', [fundingTx.blockhash])).height;
    for (const peer of [bob, carol]) {
      const ours = await channelWith(alice, peer);
      const theirs = await channelWith(peer, alice);
      assert.equal(ours.funding_txid, funding);
      assert.equal(theirs.funding_txid, funding);
      assert.equal(ours.total_msat, CHANNEL_SAT * 1000);
      // the short channel id names the devnet's block, and the output of that transaction paying the capacity
      const [block, , output] = ours.short_channel_id!.split('x').map(Number);
      assert.equal(block, height);
      assert.equal(Math.round(fundingTx.vout[output].value * 1e8), CHANNEL_SAT);
    }
  });

  test('BOLT11: bob is paid through the channel, both balances move', { skip: binaries.skip }, async () => {
    const before = [(await channelWith(alice, bob)).to_us_msat, (await channelWith(bob, alice)).to_us_msat];
    const invoice = await bob.call<{ bolt11: string; payment_hash: string }>('invoice', { amount_msat: 50_000_000, label: 'bolt11', description: 'real-node test' });
    const paid = await alice.call<{ status: string; payment_preimage: string }>('pay', { bolt11: invoice.bolt11 });
    assert.equal(paid.status, 'complete');
    const { invoices } = await bob.call<{ invoices: { status: string; amount_received_msat: number }[] }>('listinvoices', { payment_hash: invoice.payment_hash });
    assert.equal(invoices[0].status, 'paid');
    assert.equal(invoices[0].amount_received_msat, 50_000_000);
    await waitFor('the channel balances to settle', async () => {
      const now = [(await channelWith(alice, bob)).to_us_msat, (await channelWith(bob, alice)).to_us_msat];
      return now[0] === before[0] - 50_000_000 && now[1] === before[1] + 50_000_000 ? true : undefined;
    });
  });

  test('BOLT12: alice fetches an invoice for bob\'s offer and pays it', { skip: binaries.skip }, async () => {
    const offer = await bob.call<{ bolt12: string; offer_id: string }>('offer', { amount: '20000sat', description: 'real-node offer' });
    const fetched = await alice.call<{ invoice: string }>('fetchinvoice', { offer: offer.bolt12 });
    assert.match(fetched.invoice, /^lni1/);
    const before = (await channelWith(bob, alice)).to_us_msat;
    const paid = await alice.call<{ status: string }>('pay', { bolt11: fetched.invoice });
    assert.equal(paid.status, 'complete');
    const { invoices } = await bob.call<{ invoices: { status: string; local_offer_id?: string; amount_received_msat?: number }[] }>('listinvoices', { offer_id: offer.offer_id });
    assert.equal(invoices.length, 1);
    assert.equal(invoices[0].status, 'paid');
    assert.equal(invoices[0].amount_received_msat, 20_000_000);
    await waitFor("bob's balance to grow by the offer's amount", async () => ((await channelWith(bob, alice)).to_us_msat === before + 20_000_000 ? true : undefined));
  });

  test('mutual close: the closing transaction confirms and pays both wallets', { skip: binaries.skip }, async () => {
    // v24.11+ answers the closing transactions as `txids` (the single `txid` is deprecated and gone in v26)
    const closed = await alice.call<{ type: string; txids: string[] }>('close', { id: bob.id });
    assert.equal(closed.type, 'mutual');
    assert.equal(closed.txids.length, 1);
    const closingTxid = closed.txids[0];
    // lightningd answers once it has handed the transaction to bcli; the devnet sees it a moment later
    const closing = await waitFor(`${closingTxid} on the devnet`, () => tx(closingTxid).catch(() => undefined));
    assert.ok(closing.vin.some((input) => input.txid === funding), 'the closing transaction spends the funding output');
    await world.mine(1);
    const [ofAlice, ofBob] = await Promise.all([walletGetsOutputOf(alice, closingTxid), walletGetsOutputOf(bob, closingTxid)]);
    assert.equal(ofBob.amount_msat, 70_000_000, 'bob gets exactly what he was paid (the opener pays the closing fee)');
    assert.ok(ofAlice.amount_msat > (CHANNEL_SAT - 70_000 - 2_000) * 1000, `alice gets the rest less the fee (${ofAlice.amount_msat})`);
  });

  test('unilateral close: the commitment confirms, each side sweeps its output to its wallet', { skip: binaries.skip }, async () => {
    const invoice = await carol.call<{ bolt11: string }>('invoice', { amount_msat: 100_000_000, label: 'before-close', description: 'carol' });
    assert.equal((await alice.call<{ status: string }>('pay', { bolt11: invoice.bolt11 })).status, 'complete');
    // the funding transaction opened both channels: carol's is one of its outputs
    const { funding_outnum: outnum } = (await channelWith(alice, carol)) as PeerChannel & { funding_outnum: number };
    await alice.call('dev-fail', { id: carol.id });
    const spendsOf = async (txid: string, vout?: number): Promise<string[]> => {
      const spends: string[] = [];
      for (const id of await world.node.call<string[]>('getrawmempool')) {
        if ((await tx(id)).vin.some((input) => input.txid === txid && (vout === undefined || input.vout === vout))) spends.push(id);
      }
      return spends;
    };
    const [commitment] = await waitFor('alice to broadcast her commitment', async () => {
      const spends = await spendsOf(funding, outnum);
      return spends.length > 0 ? spends : undefined;
    });
    await world.mine(1);
    const closeHeight = await world.node.getBlockCount();
    // carol's output is hers after one block, alice's after the 6 blocks carol asked for: each node's onchaind sweeps
    // its own to its wallet. Blocks are mined while a sweep waits in the mempool or a delay is still running.
    const swept = async (node: RealNode) => {
      for (const output of await node.outputs()) {
        if (output.status !== 'confirmed') continue;
        if (output.txid === commitment || (await tx(output.txid)).vin.some((input) => input.txid === commitment)) return output;
      }
      return undefined;
    };
    const [carolOutput, aliceOutput] = await waitFor("both sides' outputs of the commitment in their wallets", async () => {
      const found = await Promise.all([swept(carol), swept(alice)]);
      if (found.every((output) => output !== undefined)) return found;
      const waitingSweep = (await spendsOf(commitment)).length > 0;
      if (waitingSweep || (await world.node.getBlockCount()) < closeHeight + 8) await world.mine(1);
      return undefined;
    });
    assert.ok(carolOutput!.amount_msat > 99_000_000, `carol's to_remote (${carolOutput!.amount_msat})`);
    assert.ok(aliceOutput!.amount_msat > 800_000_000, `alice's swept to_local (${aliceOutput!.amount_msat})`);
  });
});
