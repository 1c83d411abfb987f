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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import WebSocket from 'ws';
import { startFerry, type Ferry } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { startDevnet, type Devnet } from '../../../src/devnet/index.ts';
import { REGTEST_CHAIN } from '../../../src/devnet/lightning/clnrest/offers.ts';
import {
  OWNER_MESSAGES, createInvoice, decodeInvoice, encodeInvoice, encodeOffer, invoiceRequestFromBytes, signOwnerMessage,
} from '../../../src/lightning/bolt12/index.ts';
import { createLogger } from '../../../src/log/index.ts';
import { ephemeralDevnetPorts, ephemeralPorts } from '../../helpers/ports.ts';
import { clnRest } from '../../lightning/helpers.ts';
import { SwapWallet, type ReverseSwap } from '../../helpers/swap-wallet.ts';
import { bolt12InvoiceThrough, pathThrough } from '../../helpers/bolt12-wallet.ts';
import { DevnetChain } from './support/chain.ts';

const INVOICE_SAT = 60_000;
const walletSecret = secp256k1.utils.randomSecretKey();
const point = () => secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);

let devnet: Devnet;
let ferry: Ferry;
let wallet: SwapWallet;
let chain: DevnetChain;
const dirs: string[] = [];
const log: string[] = [];

const clnCall = async (node: 'cln' | 'carol', method: string, params: unknown = {}): Promise<any> => (await clnRest(devnet.info.cln![node], method, params)).body;

const clnToUs = async (node: 'cln' | 'carol'): Promise<bigint> =>
  ((await clnCall(node, 'listpeerchannels')).channels as { to_us_msat: number }[]).reduce((sum, c) => sum + BigInt(c.to_us_msat), 0n);

before(async () => {
  const devnetDir = mkdtempSync(join(tmpdir(), 'ferry-bolt12-devnet-'));
  const ferryDir = mkdtempSync(join(tmpdir(), 'ferry-bolt12-'));
  dirs.push(devnetDir, ferryDir);
  devnet = await startDevnet({ dataDir: devnetDir, ...ephemeralDevnetPorts, cln: ['cln', 'carol'] });
  const { bitcoin, cln } = devnet.info;
  const config = loadConfig({
    env: {
      FERRY_DATA_DIR: ferryDir,
      ...ephemeralPorts,
      FERRY_DEVNET_ENABLED: 'false',
      FERRY_BITCOIN_RPC_URL: bitcoin.rpcUrl,
      FERRY_BITCOIN_RPC_USER: bitcoin.rpcUser,
      FERRY_BITCOIN_RPC_PASSWORD: bitcoin.rpcPassword,
      FERRY_BITCOIN_WALLET: bitcoin.wallets.operator,
      FERRY_LIGHTNING_BACKEND: 'cln',
      FERRY_LND_REST_URL: cln!.cln.restUrl,
      FERRY_CLN_RUNE: cln!.cln.rune,
    },
  });
  config.bitcoin.pollIntervalMs = 100;
  ferry = await startFerry(config, createLogger({ level: 'warn', json: true, write: (line) => log.push(line) }));
  wallet = await SwapWallet.open({ apiUrl: ferry.apiUrl, devnet: devnet.info });
  chain = new DevnetChain(devnet.info);
});

after(async () => {
  wallet?.close();
  await ferry?.close();
  await devnet?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The wallet's connection: subscribed to its offer, answering each request with `answer`'s invoice. */
async function walletSocket(offer: string, answer: (requestHex: string) => Promise<string>): Promise<WebSocket> {
  const socket = new WebSocket(ferry.apiUrl.replace(/^http/, 'ws') + '/v2/ws');
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const subscribed = new Promise<void>((resolve) =>
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.event === 'subscribe') resolve();
      if (message.event !== 'request') return;
      for (const { id, invoiceRequest } of message.args) {
        answer(invoiceRequest).then(
          (invoice) => socket.send(JSON.stringify({ op: 'invoice', id, invoice })),
          (error: Error) => socket.send(JSON.stringify({ op: 'invoice.error', id, error: error.message })),
        );
      }
    }),
  );
  const signature = hex.encode(signOwnerMessage(OWNER_MESSAGES.subscribe, walletSecret));
  socket.send(JSON.stringify({ op: 'subscribe', channel: 'invoice.request', args: [{ offer, signature }] }));
  await subscribed;
  return socket;
}

describe('BOLT12 through Ferry on Core Lightning', { timeout: 120_000 }, () => {
  test("a wallet's offer is paid by a devnet node through Ferry, and the wallet's invoice is the one paid", async () => {
    const ferryNode = devnet.info.cln!.cln.pubkey;
    const pathThroughFerry = () => pathThrough(hex.decode(ferryNode));
    const offer = encodeOffer({ chains: [REGTEST_CHAIN], description: 'wallet tips', issuerId: secp256k1.getPublicKey(walletSecret, true), paths: [pathThroughFerry()] });
    const { minCltv } = await wallet.api.expect('GET', '/v2/lightning/BTC/bolt12/BTC', undefined, 200);

    // The wallet answers a request with an invoice for a new reverse swap's preimage hash, created with Ferry first.
    let swap: ReverseSwap | undefined;
    let walletInvoice = '';
    const socket = await walletSocket(offer, async (requestHex) => {
      const request = invoiceRequestFromBytes(hex.decode(requestHex));
      const amountMsat = request.invreq.amountMsat!;
      swap = await wallet.createReverseWithInvoice(Number(amountMsat / 1000n), (preimageHash) => {
        walletInvoice = encodeInvoice(createInvoice(request, {
          amountMsat,
          createdAt: BigInt(Math.floor(Date.now() / 1000)),
          relativeExpiry: 3600n,
          paymentHash: preimageHash,
          paths: [pathThroughFerry()],
          blindedPay: [{ feeBaseMsat: 0, feeProportionalMillionths: 0, cltvExpiryDelta: minCltv + 100, htlcMinimumMsat: 1n, htlcMaximumMsat: amountMsat, features: new Uint8Array() }],
        }, walletSecret));
        return walletInvoice;
      });
      return walletInvoice;
    });

    try {
      // The payer's side: an invoice for the offer, fetched through Ferry.
      const fetched = await wallet.api.expect('POST', '/v2/lightning/BTC/bolt12/fetch', { offer, amount: INVOICE_SAT }, 201);
      assert.equal(fetched.invoice, walletInvoice, "the wallet's invoice");
      assert.ok(swap !== undefined);
      assert.equal(hex.encode(decodeInvoice(fetched.invoice).invoice.paymentHash!), hex.encode(swap.preimageHash));
      const held = await clnCall('cln', 'listholdinvoices', { payment_hash: hex.encode(swap.preimageHash) });
      assert.equal(held.holdinvoices[0].invoice, walletInvoice, "Ferry's node holds payments for the wallet's invoice");

      const [ferryBefore, carolBefore, userBefore] = await Promise.all([clnToUs('cln'), clnToUs('carol'), chain.balance(chain.user)]);
      const paying = clnCall('carol', 'pay', { bolt11: fetched.invoice });
      const mempool = await wallet.status.waitFor(swap.id, 'transaction.mempool');
      assert.ok(mempool.transaction?.hex, 'the lockup update carries the transaction');
      const lockup = wallet.reverseLockup(swap, mempool.transaction.hex);
      const claim = await wallet.cooperativeReverseClaim(swap, lockup, await wallet.destination());
      await wallet.status.waitFor(swap.id, 'invoice.settled');

      const paid = await paying;
      assert.equal(paid.status, 'complete');
      assert.equal(paid.payment_preimage, hex.encode(swap.preimage), "carol holds the wallet's preimage");
      const sent = await clnCall('carol', 'listsendpays', { payment_hash: hex.encode(swap.preimageHash) });
      assert.equal(sent.payments[0].bolt12, walletInvoice);
      assert.equal(await clnToUs('cln'), ferryBefore + BigInt(INVOICE_SAT) * 1000n, "Ferry's node received the amount");
      assert.ok((await clnToUs('carol')) <= carolBefore - BigInt(INVOICE_SAT) * 1000n, 'carol paid it (and the routing fee)');
      await chain.mine(1);
      assert.equal(await chain.balance(chain.user), userBefore + claim.value, 'the wallet got the coins on chain');
      assert.equal((await clnCall('cln', 'listholdinvoices', { payment_hash: hex.encode(swap.preimageHash) })).holdinvoices[0].state, 'paid');
    } catch (error) {
      throw new Error(`${(error as Error).stack}\nFerry's log:\n${log.join('\n')}`);
    } finally {
      socket.close();
    }
  });

  test("a submarine swap pays carol's BOLT12 invoice, fetched through Ferry's node for her offer", async () => {
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

