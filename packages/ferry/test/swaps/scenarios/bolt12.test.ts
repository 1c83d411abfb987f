// A BOLT12 offer paid through Ferry on Core Lightning, end to end: a wallet registers its offer over the
// WebSocket (`invoice.request`); a payer fetches an invoice for it through Ferry (POST .../bolt12/fetch); the
// wallet answers Ferry's invoice request with its own BOLT12 invoice for a reverse swap's preimage hash, whose path
// leads to Ferry's CLN node, and creates that reverse swap with it; carol, another devnet CLN node, pays it; Ferry's
// node holds the payment, Ferry locks coins, the wallet claims them — and carol's payment settles with the wallet's
// preimage: the wallet's invoice is the one paid. And the other way: a submarine swap pays carol's BOLT12 invoice,
// fetched through Ferry. Always on the CLN backend: LND neither holds another's invoice nor pays BOLT12.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { REGTEST_CHAIN } from '@ferry/devnet/lightning/clnrest/offers.js';
import { decodeInvoice, encodeOffer } from '@ferry/sdk/lightning/bolt12/index.js';
import { bolt12InvoiceThrough, pathThrough } from '../../helpers/bolt12-wallet.ts';
import { carolPaysWallet, reverseSwapAnswers, startBolt12World, walletSocket, type Bolt12World } from './support/bolt12-world.ts';

const INVOICE_SAT = 60_000;
const walletSecret = secp256k1.utils.randomSecretKey();
const point = () => secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);

let world: Bolt12World;

before(async () => {
  world = await startBolt12World('bolt12');
});

after(async () => {
  await world?.close();
});

describe('BOLT12 through Ferry on Core Lightning', { timeout: 600_000 }, () => {
  test("a wallet's offer is paid by a devnet node through Ferry, and the wallet's invoice is the one paid", async () => {
    const { wallet, devnet, log } = world;
    const offer = encodeOffer({ chains: [REGTEST_CHAIN], description: 'wallet tips', issuerId: secp256k1.getPublicKey(walletSecret, true), paths: [pathThrough(hex.decode(devnet.info.cln!.cln.pubkey))] });
    const { minCltv } = await wallet.api.expect('GET', '/v2/lightning/BTC/bolt12/BTC', undefined, 200);

    // The wallet answers a request with an invoice for a new reverse swap's preimage hash, created with Ferry first.
    const { answer, made } = reverseSwapAnswers(world, walletSecret, minCltv);
    const socket = await walletSocket(world, offer, walletSecret, answer);
    try {
      // The payer's side: an invoice for the offer, fetched through Ferry.
      const fetched = await wallet.api.expect('POST', '/v2/lightning/BTC/bolt12/fetch', { offer, amount: INVOICE_SAT }, 201);
      assert.equal(fetched.invoice, made.invoice, "the wallet's invoice");
      assert.ok(made.swap !== undefined);
      assert.equal(hex.encode(decodeInvoice(fetched.invoice).invoice.paymentHash!), hex.encode(made.swap.preimageHash));
      await carolPaysWallet(world, made.swap, fetched.invoice, INVOICE_SAT);
    } catch (error) {
      throw new Error(`${(error as Error).stack}\nFerry's log:\n${log.join('\n')}`);
    } finally {
      socket.close();
    }
  });

  test("a submarine swap pays carol's BOLT12 invoice, fetched through Ferry's node for her offer", async () => {
    const { wallet, chain, clnCall, clnToUs } = world;
    const amount = 30_000;
    const { bolt12: offer } = await clnCall('carol', 'offer', { amount: 'any', description: 'carol sells' });
    const { invoice } = await wallet.api.expect('POST', '/v2/lightning/BTC/bolt12/fetch', { offer, amount }, 201);
    const paymentHash = hex.encode(decodeInvoice(invoice).invoice.paymentHash!);
    const [ferryBefore, carolBefore] = await Promise.all([clnToUs('cln'), clnToUs('carol')]);

    const swap = await wallet.createSubmarine({ invoice });
    await wallet.fund(swap, swap.expectedAmount!);
    const seen = await wallet.status.waitFor(swap.id, ['transaction.mempool', 'transaction.confirmed']);
    if (seen.status === 'transaction.mempool') await chain.mine(1);
    await wallet.status.waitFor(swap.id, 'transaction.claim.pending');
    const { invoices } = await clnCall('carol', 'listinvoices', { payment_hash: paymentHash });
    assert.equal(invoices[0].status, 'paid', "carol's invoice is paid before the claim is asked for");
    assert.equal(invoices[0].bolt12, invoice);
    await wallet.cooperativeClaim(swap);
    await wallet.status.waitFor(swap.id, 'transaction.claimed');
    assert.equal(await clnToUs('carol'), carolBefore + BigInt(amount) * 1000n, 'carol received the amount');
    assert.ok((await clnToUs('cln')) <= ferryBefore - BigInt(amount) * 1000n, "from Ferry's node");
    const sent = await clnCall('cln', 'listsendpays', { payment_hash: paymentHash });
    assert.equal(sent.payments.length, 1, 'paid once');
  });

  test('a reverse swap refuses a BOLT12 invoice for another hash, without a path through Ferry, or unparsable', async () => {
    const { wallet, devnet, clnCall } = world;
    const ferryNode = hex.decode(devnet.info.cln!.cln.pubkey);
    const preimageHash = secp256k1.utils.randomSecretKey(); // any 32 bytes
    const claimPublicKey = hex.encode(point());
    const pair = await wallet.reversePair();
    const invoiceOf = (hash: Uint8Array, firstNode: Uint8Array) => bolt12InvoiceThrough(firstNode, hash);
    const create = (invoice: string) =>
      wallet.api.call('POST', '/v2/swap/reverse', { from: 'BTC', to: 'BTC', preimageHash: hex.encode(preimageHash), claimPublicKey, pairHash: pair.hash, invoice });
    const cases: [string, RegExp][] = [
      [invoiceOf(secp256k1.utils.randomSecretKey(), ferryNode), /not for preimageHash/],
      [invoiceOf(preimageHash, point()), /no path through Ferry's node/],
      ['lni1qqqq', /invalid parameter: invoice/],
    ];
    for (const [invoice, error] of cases) {
      const answer = await create(invoice);
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.match(answer.body.error, error);
    }
    assert.equal((await clnCall('cln', 'listholdinvoices', { payment_hash: hex.encode(preimageHash) })).holdinvoices.length, 0, 'nothing held');
  });
});

