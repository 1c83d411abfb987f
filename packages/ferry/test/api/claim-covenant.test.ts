// Claim covenants on Liquid, end to end on the devnet: a receiver asks for a reverse swap to L-BTC with
// `claimCovenant` and its address; the tree Ferry answers carries boltz-core's covenant claim leaf, which the SDK's
// checks rebuild (and refuse for another address). Once Ferry locks, anyone holding the preimage claims to that
// address without the claim key — the devnet's Elements node runs the introspection opcodes and refuses a forged
// claim to another address — and the address receives exactly the committed amount; Ferry learns the preimage from
// the chain and settles the invoice. Requests Ferry cannot honour are refused with the reference's texts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hex } from '@scure/base';
import { Transaction } from 'liquidjs-lib';
import { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { claimCovenantTerms, committedAmount, covenantClaimFee } from '@ferry/sdk/chains/liquid/covenant.js';
import { covenantClaim } from '@ferry/sdk/chains/liquid/covenant-claim.js';
import { deserializeLiquidTree, liquidSwapOutputKey } from '@ferry/sdk/chains/liquid/htlc.js';
import { policyAsset } from '@ferry/sdk/chains/liquid/network.js';
import { initLiquid } from '@ferry/sdk/chains/liquid/zkp.js';
import { verifyReverse } from '@ferry/sdk/client/verify.js';
import { startFerry, type Ferry } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { LndRestClient } from '../../src/lightning/lnd/client.ts';
import { ephemeralPorts } from '../helpers/ports.ts';
import { StatusSocket, SwapApi, newKeyPair, newPreimage } from '../helpers/swap-api.ts';
import { mempoolSpenderOf } from './covenant-receiver.ts';
import { ferryConfigLightningEnv } from '../helpers/test-lightning.ts';

let ferry: Ferry;
let api: SwapApi;
let socket: StatusSocket;
let elements: CoreRpcClient;
let wallet: CoreRpcClient;
before(async () => {
  await initLiquid();
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-covenant-'));
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts, ...ferryConfigLightningEnv() } });
  ferry = await startFerry(config, silentLogger);
  api = new SwapApi(ferry.apiUrl);
  socket = await StatusSocket.open(ferry.apiUrl);
  const info = ferry.devnet!.info.elements;
  elements = new CoreRpcClient({ url: info.rpcUrl, user: info.rpcUser, password: info.rpcPassword });
  wallet = elements.wallet(info.wallets.user);
});
after(async () => {
  socket?.close();
  await ferry?.close();
});

/** A reverse swap to L-BTC with a claim covenant to a fresh address of the user wallet. */
export async function covenantSwap(invoiceAmount: number) {
  const claim = newKeyPair();
  const { preimage, preimageHash } = newPreimage();
  const address = await wallet.getNewAddress();
  const body = { from: 'BTC', to: 'L-BTC', invoiceAmount, preimageHash: hex.encode(preimageHash), claimPublicKey: hex.encode(claim.publicKey), address, claimCovenant: true };
  const created = await api.expect('POST', '/v2/swap/reverse', body, 201);
  await socket.subscribe(created.id);
  const height = await elements.call<number>('getblockcount', []);
  const check = { answer: created, key: claim, preimageHash, invoiceAmount, height, network: 'regtest' as const, currency: 'L-BTC' };
  return { created, claim, preimage, preimageHash, address, check };
}

/** The wallet's coins of a transaction: sat and asset. */
const coinsOf = async (txid: string) =>
  (await wallet.call<Array<{ txid: string; amount: number; asset: string }>>('listunspent', [0])).filter((coin) => coin.txid === txid).map((coin) => ({
    amount: Math.round(coin.amount * 1e8),
    asset: coin.asset,
  }));

test('a covenant swap: the SDK checks the leaf, a claim without the claim key pays the address, a forged one is refused', async () => {
  const { created, claim, preimage, address, check } = await covenantSwap(40_000);
  const pairs = await api.expect('GET', '/v2/swap/reverse', undefined, 200);
  const pair = pairs.BTC['L-BTC'];
  const leaf = created.swapTree.covenantClaimLeaf;
  assert.equal(leaf?.version, 196, 'the tree has a covenant claim leaf of Elements tapscript');
  const expected = committedAmount(leaf.output)!;
  const fee = covenantClaimFee(0.1, pair.fees.minerFees.claim); // the devnet's Liquid rate is the 0.1 sat/vbyte floor
  assert.equal(expected, created.onchainAmount - fee - 1, 'the leaf commits to the lockup less a covenant claim fee and one blinded sat');

  // The SDK rebuilds the tree with the covenant for our address; for another address, or without asking, it refuses.
  const checked = verifyReverse({ ...check, pair, claimCovenant: { address } });
  assert.equal(checked.address, created.lockupAddress);
  assert.throws(() => verifyReverse({ ...check, claimCovenant: { address: 'el1qqf5ne6usmnfqpp5mlhx5m4xfsw6w0xtwlwm0j9v3qr9jvwynx4kkxt9a0ezktd7q6qsp90vsy2yy5hvpvnwmu8trpvtppvwxh' } }));
  assert.throws(() => verifyReverse(check), /swap tree is not the one/);

  const alice = ferry.devnet!.info.lightning.alice;
  const payerNode = new LndRestClient({ url: alice.restUrl, macaroon: alice.macaroon });
  const paid = payerNode.payInvoice({ paymentRequest: created.invoice, timeoutSeconds: 120, feeLimitMsat: 10_000n });
  await socket.waitFor(created.id, 'transaction.mempool', 60_000);
  const lockupHex = (await api.expect('GET', `/v2/swap/reverse/${created.id}/transaction`, undefined, 200)).hex as string;
  const lockupTx = Transaction.fromHex(lockupHex);
  const script = checked.outputScript;
  const vout = lockupTx.outs.findIndex((out) => Buffer.from(out.script).equals(Buffer.from(script)));
  const tree = deserializeLiquidTree(created.swapTree);
  const lockup = { txid: lockupTx.getId(), vout, prevout: lockupTx.outs[vout], blindingPrivateKey: hex.decode(created.blindingKey) };
  const internalKey = liquidSwapOutputKey(hex.decode(created.refundPublicKey), claim.publicKey, tree).internalKey;
  const claimTo = (to: string) => covenantClaim({ lockup, tree, internalKey, preimage, terms: claimCovenantTerms(to, expected, 'regtest') });

  // Anyone may broadcast the claim, but only to the committed address: the node runs the covenant.
  const forged = await elements.call('sendrawtransaction', [claimTo(await wallet.getNewAddress())]).then(() => 'accepted', (error: Error) => error.message);
  assert.match(forged, /Script failed an OP_EQUALVERIFY operation/);
  const txid = await elements.call<string>('sendrawtransaction', [claimTo(address)]);
  await elements.call('generatetoaddress', [1, await wallet.getNewAddress()]);
  assert.deepEqual(await coinsOf(txid), [{ amount: expected, asset: policyAsset('regtest') }], 'the address got the committed amount of L-BTC');

  // Ferry learns the preimage from the claim on chain and settles the invoice.
  const payment = await paid;
  assert.equal(payment.status, 'SUCCEEDED');
  assert.equal(payment.preimage, hex.encode(preimage));
});

test('claimCovenant is refused off Liquid, without an address and with an address of another chain', async () => {
  const claim = newKeyPair();
  const base = { from: 'BTC', invoiceAmount: 25_000, claimPublicKey: hex.encode(claim.publicKey), claimCovenant: true };
  const refused = async (body: Record<string, unknown>) => {
    const answer = await api.call('POST', '/v2/swap/reverse', { ...base, preimageHash: hex.encode(newPreimage().preimageHash), ...body });
    return [answer.status, answer.body.error];
  };
  const address = await wallet.getNewAddress();
  assert.deepEqual(await refused({ to: 'L-BTC' }), [400, 'userAddress for covenant not specified']);
  assert.deepEqual(await refused({ to: 'L-BTC', address: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080' }), [400, 'invalid address']);
  assert.deepEqual(await refused({ to: 'BTC', address: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080' }), [400, 'claim covenant only supported on Liquid']);
  assert.deepEqual(await refused({ to: 'L-BTC', address, claimCovenant: 'yes' }), [400, 'invalid parameter: claimCovenant']);
});

test("Ferry's covenant claimer: the receiver registers its preimage and goes offline; its address receives the coins", async () => {
  const { created, claim, preimage, address } = await covenantSwap(45_000);
  const expected = committedAmount(created.swapTree.covenantClaimLeaf.output)!;
  const registration = {
    address,
    preimage: hex.encode(preimage),
    tree: created.swapTree,
    blindingKey: created.blindingKey,
    claimPublicKey: hex.encode(claim.publicKey),
    refundPublicKey: created.refundPublicKey,
  };
  // Refused: a tree, key or address that is not the swap's.
  const refused = async (body: Record<string, unknown>) => {
    const answer = await api.call('POST', '/v2/swap/covenant', { ...registration, ...body });
    return [answer.status, answer.body.error];
  };
  assert.deepEqual(await refused({ address: await wallet.getNewAddress() }), [400, 'address does not match the covenant']);
  assert.deepEqual(await refused({ preimage: hex.encode(newPreimage().preimage) }), [404, 'could not find swap with preimage hash']);
  assert.deepEqual(await refused({ claimPublicKey: hex.encode(newKeyPair().publicKey) }), [400, 'claimPublicKey does not match']);
  const { claimLeaf, refundLeaf } = created.swapTree;
  assert.deepEqual(await refused({ tree: { claimLeaf, refundLeaf } }), [400, 'swap tree does not match']);
  assert.deepEqual(await api.expect('POST', '/v2/swap/covenant', registration, 201), {});
  // The receiver is offline from here on: nobody but Ferry and the payer acts.
  const stored = () => ferry.storage.kv.get(`covenant-claim:${created.id}`);
  assert.equal(JSON.parse((await stored())!).preimage, hex.encode(preimage), 'the registration is in the database');

  const alice = ferry.devnet!.info.lightning.alice;
  const payerNode = new LndRestClient({ url: alice.restUrl, macaroon: alice.macaroon });
  const paid = payerNode.payInvoice({ paymentRequest: created.invoice, timeoutSeconds: 120, feeLimitMsat: 10_000n });
  await socket.waitFor(created.id, 'transaction.mempool', 60_000);
  const lockup = await api.expect('GET', `/v2/swap/reverse/${created.id}/transaction`, undefined, 200);
  const claimTx = await mempoolSpenderOf(elements, lockup.id, 60_000);
  await elements.call('generatetoaddress', [1, await wallet.getNewAddress()]);
  assert.deepEqual(await coinsOf(claimTx.getId()), [{ amount: expected, asset: policyAsset('regtest') }], 'the address got the committed amount');
  const payment = await paid;
  assert.equal(payment.status, 'SUCCEEDED', 'the invoice was settled with the preimage the claim revealed');
  assert.equal(payment.preimage, hex.encode(preimage));
  await socket.waitFor(created.id, 'invoice.settled', 60_000);
  assert.equal(await stored(), undefined, 'the registration went with the claim');
});

test('a registration for a swap without a covenant is refused', async () => {
  const claim = newKeyPair();
  const { preimage, preimageHash } = newPreimage();
  const body = { from: 'BTC', to: 'L-BTC', invoiceAmount: 30_000, preimageHash: hex.encode(preimageHash), claimPublicKey: hex.encode(claim.publicKey) };
  const created = await api.expect('POST', '/v2/swap/reverse', body, 201);
  const answer = await api.call('POST', '/v2/swap/covenant', {
    address: await wallet.getNewAddress(),
    preimage: hex.encode(preimage),
    tree: created.swapTree,
    blindingKey: created.blindingKey,
    claimPublicKey: hex.encode(claim.publicKey),
    refundPublicKey: created.refundPublicKey,
  });
  assert.deepEqual([answer.status, answer.body.error], [400, 'swap has no claim covenant']);
});
