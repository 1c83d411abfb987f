// Reverse swaps with a magic routing hint, end to end on the devnet's Liquid chain, with the payer's checks done by
// the SDK (@ferry/sdk/lightning/magic-routing-hint): a receiver who sends its L-BTC address signed by its claim key
// gets an invoice whose routing hint names that key; GET /v2/swap/reverse/{invoice}/bip21 answers the signed BIP21;
// the payer verifies it against the invoice and pays the receiver on Liquid directly — the coins arrive, Ferry locks
// nothing and the swap ends when its unpaid invoice expires. The same hinted invoice still works over Lightning.
// Forged signatures, addresses of another chain and bad fields are refused with the reference's texts.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hex } from '@scure/base';
import { CoreRpcClient, satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { paymentUriScheme, policyAsset } from '@ferry/sdk/chains/liquid/network.js';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { MAGIC_ROUTING_HINT_SCID, checkDirectPayment, findMagicRoutingHint, signAddress } from '@ferry/sdk/lightning/magic-routing-hint.js';
import { SwapClient } from '@ferry/sdk/client/index.js';
import { startFerry, type Ferry } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { LndRestClient } from '../../src/lightning/lnd/client.ts';
import { ephemeralPorts } from '../helpers/ports.ts';
import { StatusSocket, SwapApi, newKeyPair, newPreimage } from '../helpers/swap-api.ts';
import { ferryConfigLightningEnv, onCln } from '../helpers/test-lightning.ts';
import { rest } from '../lightning/helpers.ts';

// Short enough that the directly paid swap's invoice expires within the test, long enough to pay one over Lightning.
const INVOICE_EXPIRY_SECONDS = 30;

let ferry: Ferry;
let api: SwapApi;
let socket: StatusSocket;
let elements: CoreRpcClient;
let wallet: CoreRpcClient;
before(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-magic-hint-'));
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts, ...ferryConfigLightningEnv() } });
  config.swap.invoiceExpirySeconds = INVOICE_EXPIRY_SECONDS;
  ferry = await startFerry(config, silentLogger);
  api = new SwapApi(ferry.apiUrl);
  socket = await StatusSocket.open(ferry.apiUrl);
  const info = ferry.devnet!.info.elements;
  elements = new CoreRpcClient({ url: info.rpcUrl, user: info.rpcUser, password: info.rpcPassword });
  // The devnet's Elements has one user wallet: it receives at a fresh address of its own and pays from its coins.
  wallet = elements.wallet(info.wallets.user);
});
after(async () => {
  socket?.close();
  await ferry?.close();
});

/** A reverse swap to L-BTC whose receiver asks for the hint: its claim key signs its address. */
async function hintedSwap(invoiceAmount: number) {
  const claim = newKeyPair();
  const { preimage, preimageHash } = newPreimage();
  const address = await wallet.getNewAddress();
  const addressSignature = hex.encode(signAddress(address, claim.privateKey));
  const created = await api.expect('POST', '/v2/swap/reverse', {
    from: 'BTC',
    to: 'L-BTC',
    invoiceAmount,
    preimageHash: hex.encode(preimageHash),
    claimPublicKey: hex.encode(claim.publicKey),
    address,
    addressSignature,
  }, 201);
  await socket.subscribe(created.id);
  return { created, claim, preimage, address, addressSignature };
}

/** The confirmed coins at `address`: txid, sat and asset. */
const coinsAt = async (address: string) =>
  (await wallet.call<Array<{ txid: string; amount: number; asset: string }>>('listunspent', [1, 9_999_999, [address]])).map((coin) => ({
    txid: coin.txid,
    amount: Math.round(coin.amount * 1e8),
    asset: coin.asset,
  }));

test('the payer finds the hint, checks the signed BIP21 and pays the receiver on Liquid; Ferry locks nothing', async () => {
  const { created, claim, address, addressSignature } = await hintedSwap(40_000);
  const invoice = decodeBolt11(created.invoice);
  const hint = findMagicRoutingHint(invoice);
  assert.equal(hint?.publicKey, hex.encode(claim.publicKey), "the hint names the receiver's claim key");
  const hop = invoice.routeHints.flat().find((candidate) => candidate.shortChannelId === MAGIC_ROUTING_HINT_SCID)!;
  assert.deepEqual([hop.feeBaseMsat, hop.feeProportionalMillionths, hop.cltvExpiryDelta], [0, 21, 81]);

  const answer = await api.expect('GET', `/v2/swap/reverse/${created.invoice.toUpperCase()}/bip21`, undefined, 200);
  assert.equal(answer.signature, addressSignature);
  const pairs = await api.expect('GET', '/v2/swap/reverse', undefined, 200);
  const payment = checkDirectPayment(invoice, answer, { schemes: [paymentUriScheme('regtest')], assetId: policyAsset('regtest') });
  assert.equal(payment.address, address);
  // What the receiver would have claimed: the lockup less its claim transaction's fee.
  assert.equal(payment.amount, created.onchainAmount - pairs.BTC['L-BTC'].fees.minerFees.claim);

  // The payer's own checks refuse a BIP21 whose signature is not by the key in the invoice, or for another asset.
  assert.throws(() => checkDirectPayment(invoice, { ...answer, signature: hex.encode(signAddress(address, newKeyPair().privateKey)) }, { schemes: [paymentUriScheme('regtest')] }), /does not match the key in the invoice/);
  assert.throws(() => checkDirectPayment(invoice, answer, { schemes: [paymentUriScheme('regtest')], assetId: '00'.repeat(32) }), /asks for asset/);
  assert.throws(() => checkDirectPayment(invoice, answer, { schemes: ['bitcoin'] }), /BIP21 is for/);

  assert.deepEqual(await coinsAt(address), []);
  const txid = await wallet.call<string>('sendtoaddress', [payment.address, satToBtc(payment.amount)]);
  await elements.call('generatetoaddress', [1, await wallet.getNewAddress()]);
  assert.deepEqual(await coinsAt(address), [{ txid, amount: payment.amount, asset: policyAsset('regtest') }], 'the receiver got the BIP21 amount in L-BTC');

  // Nobody pays the invoice: it expires and the swap ends without Ferry ever locking coins.
  await socket.waitFor(created.id, 'invoice.expired', (INVOICE_EXPIRY_SECONDS + 60) * 1000);
  assert.deepEqual(socket.statuses(created.id).filter((status) => status.startsWith('transaction.')), [], 'Ferry never locked');
  const lockup = await api.call('GET', `/v2/swap/reverse/${created.id}/transaction`);
  assert.notEqual(lockup.status, 200, `no lockup transaction: ${JSON.stringify(lockup.body)}`);
});

test('a hinted invoice is still paid over Lightning, and the swap completes as any reverse swap', async () => {
  const { created, preimage } = await hintedSwap(30_000);
  const alice = ferry.devnet!.info.lightning.alice;
  const payerNode = new LndRestClient({ url: alice.restUrl, macaroon: alice.macaroon });
  const paid = payerNode.payInvoice({ paymentRequest: created.invoice, timeoutSeconds: 60, feeLimitMsat: 10_000n });
  await socket.waitFor(created.id, 'transaction.mempool', 60_000);
  const claimed = await api.expect('POST', `/v2/swap/reverse/${created.id}/claim`, { preimage: hex.encode(preimage) }, 200);
  assert.deepEqual(claimed, {});
  const payment = await paid;
  assert.equal(payment.status, 'SUCCEEDED', 'alice paid the hinted invoice over Lightning');
  assert.equal(payment.preimage, hex.encode(preimage));
  await socket.waitFor(created.id, 'invoice.settled', 60_000);
});

test('forged signatures, addresses of another chain and malformed fields are refused; a swap without a hint has no BIP21', async () => {
  const claim = newKeyPair();
  const address = await wallet.getNewAddress();
  const base = { from: 'BTC', to: 'L-BTC', invoiceAmount: 25_000, claimPublicKey: hex.encode(claim.publicKey) };
  const refused = async (body: Record<string, unknown>) => {
    const answer = await api.call('POST', '/v2/swap/reverse', { ...base, preimageHash: hex.encode(newPreimage().preimageHash), ...body });
    return [answer.status, answer.body.error];
  };
  const otherKey = newKeyPair().privateKey;
  assert.deepEqual(await refused({ address, addressSignature: hex.encode(signAddress(address, otherKey)) }), [400, 'invalid address signature']);
  const otherAddress = await wallet.getNewAddress();
  assert.deepEqual(await refused({ address, addressSignature: hex.encode(signAddress(otherAddress, claim.privateKey)) }), [400, 'invalid address signature']);
  const bitcoinAddress = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
  assert.deepEqual(await refused({ address: bitcoinAddress, addressSignature: hex.encode(signAddress(bitcoinAddress, claim.privateKey)) }), [400, 'invalid address']);
  assert.deepEqual(await refused({ address, addressSignature: 'zz' }), [400, 'invalid parameter: addressSignature']);
  assert.deepEqual(await refused({ address: 'x'.repeat(201), addressSignature: '00'.repeat(64) }), [400, 'invalid parameter: address']);

  const plain = await api.expect('POST', '/v2/swap/reverse', { ...base, preimageHash: hex.encode(newPreimage().preimageHash) }, 201);
  assert.equal(findMagicRoutingHint(decodeBolt11(plain.invoice)), undefined);
  const none = await api.call('GET', `/v2/swap/reverse/${plain.invoice}/bip21`);
  assert.deepEqual([none.status, none.body.error], [404, 'no BIP-21 for swap']);
});

test("the devnet's LND writes route_hints into a hold invoice and refuses a hop key LND could not parse", { skip: onCln() && 'the LND REST face is checked on the LND pass' }, async () => {
  const ferryNode = ferry.devnet!.info.lightning.ferry;
  const key = hex.encode(newKeyPair().publicKey);
  const hop = { node_id: key, chan_id: BigInt(`0x${MAGIC_ROUTING_HINT_SCID}`).toString(), fee_base_msat: 0, fee_proportional_millionths: 21, cltv_expiry_delta: 81 };
  const hold = (nodeId: string) =>
    rest<{ payment_request?: string; message?: string }>(ferryNode, 'POST', '/v2/invoices/hodl', {
      hash: Buffer.from(newPreimage().preimageHash).toString('base64'),
      value: '1000',
      route_hints: [{ hop_hints: [{ ...hop, node_id: nodeId }] }],
    });
  const made = await hold(key);
  assert.equal(made.status, 200);
  assert.deepEqual(findMagicRoutingHint(decodeBolt11(made.body.payment_request!)), { publicKey: key });
  // invoicesrpc.CreateZpay32HopHints: hex.DecodeString, then btcec.ParsePubKey.
  assert.match((await hold('zz')).body.message ?? '', /^encoding\/hex: invalid byte/);
  assert.match((await hold('02ab')).body.message ?? '', /^malformed public key: invalid length: 2/);
});

test('the SDK on both sides: a receiving client asks for the hint, a paying client finds and checks it', async () => {
  const receiving = new SwapClient({ serviceUrl: ferry.apiUrl, network: 'regtest', currency: 'L-BTC' });
  const paying = new SwapClient({ serviceUrl: ferry.apiUrl, network: 'regtest' });
  const address = await wallet.getNewAddress();
  const record = await receiving.createReverse({ invoiceAmount: 35_000, directAddress: address });
  const payment = await paying.directPayment(record.invoice, 'L-BTC');
  assert.equal(payment?.address, address);
  assert.ok(payment!.amount < record.onchainAmount && payment!.amount > 0, `${payment!.amount} sat: the lockup less the claim fee`);
  // On the wrong chain the payer refuses; without a hint there is nothing to pay directly.
  await assert.rejects(paying.directPayment(record.invoice, 'BTC'), /fails a check: the BIP21 is for/);
  const plain = await receiving.createReverse({ invoiceAmount: 35_000 });
  assert.equal(await paying.directPayment(plain.invoice, 'L-BTC'), undefined);
});
