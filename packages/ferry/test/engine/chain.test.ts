// Chain swaps run by the engine inside a real zero-config Ferry (devnet Bitcoin and Elements nodes), driven by the
// engine's createChain (the v2 routes come next): the user locks BTC, Ferry locks L-BTC, the user claims Ferry's
// lockup through the claim leaf and Ferry claims the user's with the preimage it reads from that claim; or nobody
// claims and Ferry takes its lockup back at its timeout, before the user can take theirs. Effects are asserted on
// both chains: who spent which lockup, with what, and the wallets' balances.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Transaction } from 'liquidjs-lib';
import { startFerry, type Ferry } from '../../src/app.ts';
import { CoreRpcClient, btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import { deserializeLiquidTree, liquidSwapMusig, liquidSwapOutputKey } from '@ferry/sdk/chains/liquid/htlc.js';
import { deserializeTree } from '@ferry/sdk/chains/bitcoin/htlc.js';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { findOutput, keyPathDraft as bitcoinKeyPathDraft, scriptPathClaim as bitcoinScriptPathClaim } from '@ferry/sdk/chains/bitcoin/spends.js';
import { swapOutputKey } from '@ferry/sdk/keys/index.js';
import { bitcoinSwapMusig } from '@ferry/sdk/keys/index.js';
import { decodeAddress } from '@ferry/sdk/chains/liquid/network.js';
import { keyPathDraft, scriptPathClaim } from '@ferry/sdk/chains/liquid/spends.js';
import { loadConfig } from '../../src/config/index.ts';
import type { ChainSwapData } from '../../src/engine/data.ts';
import { silentLogger } from '../../src/log/index.ts';
import { ephemeralPorts } from '../helpers/ports.ts';
import { createHash } from 'node:crypto';

let dataDir: string;
let ferry: Ferry;
let bitcoin: CoreRpcClient;
let bitcoinUser: CoreRpcClient;
let elements: CoreRpcClient;
let elementsUser: CoreRpcClient;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-chain-swap-'));
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts } });
  config.bitcoin.pollIntervalMs = 100;
  config.liquid.pollIntervalMs = 100;
  config.swap.claimDelayMs = 1_000;
  ferry = await startFerry(config, silentLogger);
  const info = ferry.devnet!.info;
  bitcoin = new CoreRpcClient({ url: info.bitcoin.rpcUrl, user: info.bitcoin.rpcUser, password: info.bitcoin.rpcPassword });
  bitcoinUser = bitcoin.wallet(info.bitcoin.wallets.user);
  elements = new CoreRpcClient({ url: info.elements.rpcUrl, user: info.elements.rpcUser, password: info.elements.rpcPassword });
  elementsUser = elements.wallet(info.elements.wallets.user);
});

after(async () => {
  await ferry?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const swaps = () => ferry.swaps!;

/**
 * Waits for a swap's status. Ferry's watchers first handle every block their nodes have (after ~1,440 Liquid blocks
 * mined at once that is work which grows with the machine's load), then the ceiling counts what follows them.
 */
async function untilStatus(id: string, wanted: string, timeoutMs = 45_000): Promise<ChainSwapData> {
  await Promise.all([...ferry.chains.values()].map((chain) => chain.watcher.sync()));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const swap = await ferry.storage.swaps.get(id);
    if (swap?.status === wanted) return swap.data as ChainSwapData;
    if (Date.now() > deadline) throw new Error(`swap ${id} is ${swap?.status}, not ${wanted}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The user's L-BTC, spendable and pending, in sat (Elements lists balances by asset label). */
async function liquidBalance(): Promise<bigint> {
  const { mine } = await elementsUser.call<{ mine: { trusted: { bitcoin?: number }; untrusted_pending: { bitcoin?: number } } }>('getbalances');
  return btcToSat(mine.trusted.bitcoin ?? 0) + btcToSat(mine.untrusted_pending.bitcoin ?? 0);
}

const mineBitcoin = async (blocks = 1) => bitcoin.generateToAddress(blocks, await bitcoinUser.getNewAddress());
const mineElements = async (blocks = 1) => elements.generateToAddress(blocks, await elementsUser.getNewAddress());

/** A BTC → L-BTC chain swap of `amount` sat with the client's keys, its BTC lockup paid and confirmed. */
async function lockedSwap(amount: number) {
  const claimKey = secp256k1.utils.randomSecretKey();
  const refundKey = secp256k1.utils.randomSecretKey();
  const preimage = randomBytes(32);
  const created = await swaps().createChainSwap({
    from: 'BTC',
    to: 'L-BTC',
    preimageHash: Buffer.from(sha256(preimage)).toString('hex'),
    claimPublicKey: Buffer.from(secp256k1.getPublicKey(claimKey, true)).toString('hex'),
    refundPublicKey: Buffer.from(secp256k1.getPublicKey(refundKey, true)).toString('hex'),
    userLockAmount: amount,
  });
  assert.equal(created.user.amount, amount);
  assert.ok(created.server.amount < amount && created.server.amount > amount * 0.99, `Ferry locks the amount less fees: ${created.server.amount}`);
  assert.match(created.server.address, /^el1/, "Ferry's lockup is blinded");
  assert.ok(created.server.blindingKey, 'with the key that unblinds it');
  const lockupTxid = await bitcoinUser.sendToAddress(created.user.address, amount / 1e8);
  await mineBitcoin();
  return { created, claimKey, refundKey, preimage, lockupTxid };
}

test('BTC → L-BTC: Ferry locks once the user has, the user claims it with the preimage, Ferry claims the user\'s lockup with it', async () => {
  const { created, claimKey, preimage, lockupTxid } = await lockedSwap(200_000);
  const data = await untilStatus(created.id, 'transaction.server.mempool');
  assert.equal(data.lockup?.txid, lockupTxid, "the user's lockup is recorded");
  const serverLockup = data.serverLockup!;
  assert.equal(serverLockup.value, created.server.amount);

  // The client claims Ferry's L-BTC through the claim leaf, to its own confidential address.
  const lockupTx = Transaction.fromHex(await elements.getRawTransactionHex(serverLockup.txid));
  const tree = deserializeLiquidTree(created.server.swapTree!);
  const { internalKey } = liquidSwapOutputKey(Buffer.from(created.server.refundPublicKey, 'hex'), secp256k1.getPublicKey(claimKey, true), tree);
  const destination = decodeAddress(await elementsUser.getNewAddress(), 'regtest');
  const before = await liquidBalance();
  const claim = scriptPathClaim({
    lockup: { txid: serverLockup.txid, vout: serverLockup.vout, prevout: lockupTx.outs[serverLockup.vout], blindingPrivateKey: Buffer.from(created.server.blindingKey!, 'hex') },
    tree,
    internalKey,
    privateKey: claimKey,
    preimage,
    destination,
    feeRate: 0.1,
    network: 'regtest',
  });
  await elements.sendRawTransaction(claim.hex);
  await mineElements();

  // Ferry reads the preimage off that claim and, its cooperative window over, claims the user's BTC.
  const claimed = await untilStatus(created.id, 'transaction.claimed');
  assert.equal(claimed.preimage, preimage.toString('hex'));
  const ferryClaim = await bitcoin.getRawTransaction(claimed.claimTransaction!.txid);
  const input = (ferryClaim as unknown as { vin: { txid: string; vout: number; txinwitness: string[] }[] }).vin[0];
  assert.equal(input.txid, lockupTxid, "Ferry's claim spends the user's lockup");
  assert.ok(input.txinwitness.includes(preimage.toString('hex')), 'through the claim leaf, with the preimage');
  await mineElements();
  assert.equal((await liquidBalance()) - before, claim.amount, 'the user received Ferry\'s lockup less its claim fee');
});

test('BTC → L-BTC: nobody claims, Ferry refunds its lockup at its timeout, which comes before the user\'s', async () => {
  const { created } = await lockedSwap(150_000);
  const data = await untilStatus(created.id, 'transaction.server.mempool');
  const serverLockup = data.serverLockup!;
  await mineElements();
  await untilStatus(created.id, 'transaction.server.confirmed');
  // In time, Ferry's window is the shorter: 1 day of Liquid blocks against 2 days of Bitcoin blocks.
  assert.ok((created.server.timeoutBlockHeight - created.server.startHeight) * 60 < (created.user.timeoutBlockHeight - created.user.startHeight) * 600);

  await elements.generateToAddress(created.server.timeoutBlockHeight - (await elements.getBlockCount()), await elementsUser.getNewAddress());
  const refunded = await untilStatus(created.id, 'transaction.refunded');
  const refund = (await elements.getRawTransaction(refunded.refundTransaction!.txid)) as unknown as { vin: { txid: string; vout: number }[] };
  assert.deepEqual([refund.vin[0].txid, refund.vin[0].vout], [serverLockup.txid, serverLockup.vout], "Ferry's refund spends its own lockup");
  await mineElements();
  assert.equal(await elements.getTxOut(serverLockup.txid, serverLockup.vout, true), null, 'and it is in a block');
  // The user's BTC lockup is untouched: theirs to refund after their own, later timeout.
  const userLockup = refunded.lockup!;
  assert.notEqual(await bitcoin.getTxOut(userLockup.txid, userLockup.vout, true), null);
});

test('chain swap requests with bad input are refused and create nothing', async () => {
  const key = Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)).toString('hex');
  const base = { from: 'BTC', to: 'L-BTC', preimageHash: Buffer.from(randomBytes(32)).toString('hex'), claimPublicKey: key, refundPublicKey: key };
  const before = await ferry.storage.swaps.count();
  const refusals: [object, RegExp][] = [
    [{ ...base, from: 'L-BTC', to: 'L-BTC' }, /could not find pair/],
    [{ ...base, to: 'DOGE' }, /could not find pair/],
    [{ ...base, userLockAmount: 100_000, serverLockAmount: 90_000 }, /were specified/],
    [{ ...base, userLockAmount: 100 }, /less than minimal/],
    [{ ...base, userLockAmount: -5 }, /userLockAmount/],
    [{ ...base, claimPublicKey: 'zz', userLockAmount: 100_000 }, /could not parse hex string: zz/],
    [{ ...base, preimageHash: 'ab', userLockAmount: 100_000 }, /preimage hash/],
  ];
  for (const [request, reason] of refusals) {
    await assert.rejects(swaps().createChainSwap(request as never), reason, JSON.stringify(request));
  }
  assert.equal(await ferry.storage.swaps.count(), before);
});

async function api(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(ferry.apiUrl + path, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

test('over the v2 API: pairs, creation, lockups, no refund while Ferry can be claimed, and both key-path claims co-signed', async () => {
  const pairs = await api('GET', '/v2/swap/chain');
  // RBTC: chain swaps BTC ⇄ RBTC (test/engine/evm-chain.test.ts).
  assert.deepEqual(Object.keys(pairs.json).sort(), ['BTC', 'L-BTC', 'RBTC']);
  const pair = pairs.json.BTC['L-BTC'];
  assert.equal(pair.fees.percentage, 0.1);
  assert.ok(pair.fees.minerFees.server > 0 && pair.fees.minerFees.user.claim > 0 && pair.fees.minerFees.user.lockup > 0);
  const hashed = createHash('sha256').update(JSON.stringify({ rate: pair.rate, fees: pair.fees, limits: pair.limits })).digest('hex');
  assert.equal(pair.hash, hashed);

  const claimKey = secp256k1.utils.randomSecretKey();
  const claimPublicKey = secp256k1.getPublicKey(claimKey, true);
  const refundKey = secp256k1.utils.randomSecretKey();
  const preimage = randomBytes(32);
  const request = {
    from: 'BTC',
    to: 'L-BTC',
    preimageHash: Buffer.from(sha256(preimage)).toString('hex'),
    claimPublicKey: Buffer.from(claimPublicKey).toString('hex'),
    refundPublicKey: Buffer.from(secp256k1.getPublicKey(refundKey, true)).toString('hex'),
    userLockAmount: 120_000,
    pairHash: pair.hash,
  };
  assert.deepEqual(await api('POST', '/v2/swap/chain', { ...request, pairHash: 'ff'.repeat(32) }), { status: 400, json: { error: 'invalid pair hash' } });
  assert.equal((await api('POST', '/v2/swap/chain', { ...request, userLockAmount: 'many' })).status, 400);
  const created = await api('POST', '/v2/swap/chain', request);
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const { id, claimDetails, lockupDetails } = created.json;
  assert.equal(lockupDetails.amount, 120_000);
  assert.match(lockupDetails.bip21, /^bitcoin:bcrt1p/);
  assert.match(claimDetails.lockupAddress, /^el1/);
  assert.ok(claimDetails.blindingKey && claimDetails.amount < 120_000);

  await bitcoinUser.sendToAddress(lockupDetails.lockupAddress, 0.0012);
  await mineBitcoin();
  await untilStatus(id, 'transaction.server.mempool');
  const transactions = (await api('GET', `/v2/swap/chain/${id}/transactions`)).json;
  assert.ok(transactions.userLock.transaction.id && transactions.serverLock.transaction.hex);
  assert.equal(transactions.serverLock.timeout.blockHeight, claimDetails.timeoutBlockHeight);

  // Ferry's lockup can still be claimed: no cooperative refund of the user's.
  const nonce = () => Buffer.concat([secp256k1.getPublicKey(randomBytes(32), true), secp256k1.getPublicKey(randomBytes(32), true)]).toString('hex');
  const refusal = await api('POST', `/v2/swap/chain/${id}/refund`, { pubNonce: nonce(), transaction: '00', index: 0 });
  assert.deepEqual(refusal, { status: 400, json: { error: 'swap not eligible for a cooperative refund: status not eligible' } });
  // No co-signature without the preimage, and a wrong preimage is refused.
  assert.equal((await api('POST', `/v2/swap/chain/${id}/claim`, { toSign: { pubNonce: nonce(), transaction: '00', index: 0 } })).status, 400);
  assert.deepEqual(await api('POST', `/v2/swap/chain/${id}/claim`, { preimage: '00'.repeat(32) }), { status: 400, json: { error: 'incorrect preimage' } });

  // Ferry's key-path claim of the user's BTC, for the client to sign: asked before the preimage is handed over.
  const details = await api('GET', `/v2/swap/chain/${id}/claim`);
  assert.equal(details.status, 200, JSON.stringify(details.json));
  assert.equal(details.json.publicKey, lockupDetails.serverPublicKey);
  const userTree = deserializeTree(lockupDetails.swapTree);
  const forFerry = bitcoinSwapMusig(refundKey, [Buffer.from(lockupDetails.serverPublicKey, 'hex'), secp256k1.getPublicKey(refundKey, true)], userTree)
    .message(Buffer.from(details.json.transactionHash, 'hex'))
    .generateNonce();
  const ourPartial = forFerry
    .aggregateNonces([[Buffer.from(lockupDetails.serverPublicKey, 'hex'), Buffer.from(details.json.pubNonce, 'hex')]])
    .initializeSession()
    .signPartial().ourPartialSignature;

  // The client's key-path claim of Ferry's L-BTC, co-signed by Ferry against the preimage.
  const serverLockupTx = Transaction.fromHex(transactions.serverLock.transaction.hex);
  const tree = deserializeLiquidTree(claimDetails.swapTree);
  const script = liquidSwapOutputKey(Buffer.from(claimDetails.serverPublicKey, 'hex'), claimPublicKey, tree).outputScript;
  const vout = serverLockupTx.outs.findIndex((out) => Buffer.from(out.script).equals(Buffer.from(script)));
  const draft = keyPathDraft({
    lockup: { txid: serverLockupTx.getId(), vout, prevout: serverLockupTx.outs[vout], blindingPrivateKey: Buffer.from(claimDetails.blindingKey, 'hex') },
    destination: decodeAddress(await elementsUser.getNewAddress(), 'regtest'),
    feeRate: 0.1,
    network: 'regtest',
  });
  const serverPublicKey = Buffer.from(claimDetails.serverPublicKey, 'hex');
  const ours = liquidSwapMusig(claimKey, [serverPublicKey, claimPublicKey], tree).message(draft.sighash).generateNonce();
  const signed = await api('POST', `/v2/swap/chain/${id}/claim`, {
    preimage: preimage.toString('hex'),
    signature: { pubNonce: Buffer.from(forFerry.publicNonce).toString('hex'), partialSignature: Buffer.from(ourPartial).toString('hex') },
    toSign: { pubNonce: Buffer.from(ours.publicNonce).toString('hex'), transaction: draft.unsignedHex, index: 0 },
  });
  assert.equal(signed.status, 200, JSON.stringify(signed.json));
  const signature = ours
    .aggregateNonces([[serverPublicKey, Buffer.from(signed.json.pubNonce, 'hex')]])
    .initializeSession()
    .signPartial()
    .addPartial(serverPublicKey, Buffer.from(signed.json.partialSignature, 'hex'))
    .aggregatePartials();
  const claim = draft.finish(signature);
  const broadcast = await api('POST', '/v2/chain/L-BTC/transaction', { hex: claim.hex });
  assert.equal(broadcast.status, 201, JSON.stringify(broadcast.json));
  await mineElements();

  // With the client's signature Ferry claimed the user's BTC at once, through the key path.
  const claimed = await untilStatus(id, 'transaction.claimed', 2_000);
  const ferryClaim = (await bitcoin.getRawTransaction(claimed.claimTransaction!.txid)) as unknown as { vin: { txid: string; txinwitness: string[] }[] };
  assert.equal(ferryClaim.vin[0].txid, transactions.userLock.transaction.id);
  assert.equal(ferryClaim.vin[0].txinwitness.length, 1, 'a key-path spend: one signature');
  assert.equal((await api('GET', `/v2/swap/${id}`)).json.status, 'transaction.claimed');
});

/** A BTC → L-BTC swap over the API, paid `paid` sat instead of the 150,000 it asks, its lockup confirmed. */
async function underpaidSwap(paid: number) {
  const refundKey = secp256k1.utils.randomSecretKey();
  const created = await api('POST', '/v2/swap/chain', {
    from: 'BTC',
    to: 'L-BTC',
    preimageHash: Buffer.from(sha256(randomBytes(32))).toString('hex'),
    claimPublicKey: Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)).toString('hex'),
    refundPublicKey: Buffer.from(secp256k1.getPublicKey(refundKey, true)).toString('hex'),
    userLockAmount: 150_000,
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const { id, lockupDetails } = created.json;
  const txid = await bitcoinUser.sendToAddress(lockupDetails.lockupAddress, paid / 1e8);
  await mineBitcoin();
  const failed = await untilStatus(id, 'transaction.lockupFailed');
  assert.equal(failed.failureReason, `locked ${paid} is less than expected 150000`);
  return { id, lockupDetails, refundKey, txid };
}

test('underpaid: Ferry quotes what it would lock for the amount locked, and locks it once the client accepts', async () => {
  const { id } = await underpaidSwap(100_000);
  await untilLockupConfirmed(id);
  const quote = await api('GET', `/v2/swap/chain/${id}/quote`);
  assert.equal(quote.status, 200, JSON.stringify(quote.json));
  assert.ok(quote.json.amount < 100_000 && quote.json.amount > 99_000, `quote ${quote.json.amount}`);
  assert.equal((await api('POST', `/v2/swap/chain/${id}/quote`, { amount: quote.json.amount + 1 })).status, 400);
  assert.equal((await api('POST', `/v2/swap/chain/${id}/quote`, {})).status, 400);
  assert.deepEqual(await api('POST', `/v2/swap/chain/${id}/quote`, { amount: quote.json.amount }), { status: 200, json: {} });
  const locked = await untilStatus(id, 'transaction.server.mempool');
  assert.equal(locked.serverLockup!.value, quote.json.amount, 'Ferry locked the quoted amount');
});

test('underpaid: the client refunds its lockup cooperatively, and no quote is offered after that', async () => {
  const { id, lockupDetails, refundKey, txid } = await underpaidSwap(90_000);
  const serverPublicKey = Buffer.from(lockupDetails.serverPublicKey, 'hex');
  const refundPublicKey = secp256k1.getPublicKey(refundKey, true);
  const tree = deserializeTree(lockupDetails.swapTree);
  const lockupHex = await bitcoin.getRawTransactionHex(txid);
  const musig = bitcoinSwapMusig(refundKey, [serverPublicKey, refundPublicKey], tree);
  const output = findOutput(lockupHex, scriptOf('regtest', lockupDetails.lockupAddress))!;
  const destination = scriptOf('regtest', await bitcoinUser.getNewAddress());
  const draft = bitcoinKeyPathDraft({ output, destination, feeRate: 2 });
  const ours = musig.message(draft.sighash).generateNonce();
  const answer = await api('POST', `/v2/swap/chain/${id}/refund`, { pubNonce: Buffer.from(ours.publicNonce).toString('hex'), transaction: draft.unsignedHex, index: 0 });
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  const signature = ours
    .aggregateNonces([[serverPublicKey, Buffer.from(answer.json.pubNonce, 'hex')]])
    .initializeSession()
    .signPartial()
    .addPartial(serverPublicKey, Buffer.from(answer.json.partialSignature, 'hex'))
    .aggregatePartials();
  const refund = draft.finish(signature);
  await bitcoin.sendRawTransaction(refund.hex);
  await mineBitcoin();
  assert.equal(await bitcoin.getTxOut(txid, output.vout, true), null, "the user's lockup is spent by its refund");
  assert.equal((await bitcoin.getRawTransaction(refund.txid)).confirmations, 1);
  const quote = await api('GET', `/v2/swap/chain/${id}/quote`);
  assert.deepEqual(quote, { status: 400, json: { error: 'no quote is available for this swap' } });
});

async function untilLockupConfirmed(id: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await ferry.storage.swaps.get(id))!.data.lockup === undefined || ((await ferry.storage.swaps.get(id))!.data.lockup as { confirmed: boolean }).confirmed !== true) {
    if (Date.now() > deadline) throw new Error('the lockup was not recorded as confirmed');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('L-BTC → BTC: the user locks blinded L-BTC, claims Ferry\'s BTC through the claim leaf, Ferry claims the L-BTC with the preimage', async () => {
  const claimKey = secp256k1.utils.randomSecretKey();
  const claimPublicKey = secp256k1.getPublicKey(claimKey, true);
  const preimage = randomBytes(32);
  const created = await api('POST', '/v2/swap/chain', {
    from: 'L-BTC',
    to: 'BTC',
    preimageHash: Buffer.from(sha256(preimage)).toString('hex'),
    claimPublicKey: Buffer.from(claimPublicKey).toString('hex'),
    refundPublicKey: Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)).toString('hex'),
    serverLockAmount: 100_000,
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const { id, claimDetails, lockupDetails } = created.json;
  assert.equal(claimDetails.amount, 100_000);
  assert.match(lockupDetails.lockupAddress, /^el1/);
  assert.match(lockupDetails.bip21, /^liquidtestnet:el1.*assetid=/);
  const userLockupTxid = await elementsUser.sendToAddress(lockupDetails.lockupAddress, lockupDetails.amount / 1e8);
  await mineElements();
  const locked = await untilStatus(id, 'transaction.server.mempool');
  assert.equal(locked.lockup?.txid, userLockupTxid);
  assert.equal(locked.lockup?.value, lockupDetails.amount, "Ferry unblinded the user's lockup");

  // The client claims Ferry's BTC through the claim leaf.
  const serverLockup = locked.serverLockup!;
  const tree = deserializeTree(claimDetails.swapTree);
  const { internalKey, outputScript } = swapOutputKey(Buffer.from(claimDetails.serverPublicKey, 'hex'), claimPublicKey, tree);
  const output = findOutput(await bitcoin.getRawTransactionHex(serverLockup.txid), outputScript)!;
  const destination = await bitcoinUser.getNewAddress();
  const claim = bitcoinScriptPathClaim({ output, tree, internalKey, privateKey: claimKey, preimage, destination: scriptOf('regtest', destination), feeRate: 2 });
  await bitcoin.sendRawTransaction(claim.hex);
  await mineBitcoin();
  const mined = (await bitcoin.getRawTransaction(claim.txid)) as unknown as { confirmations: number; vout: { value: number; scriptPubKey: { address?: string } }[] };
  assert.equal(mined.confirmations, 1);
  assert.equal(btcToSat(mined.vout.find((out) => out.scriptPubKey.address === destination)!.value), claim.amount, "the user's address received Ferry's BTC less the claim fee");

  // Ferry read the preimage off that claim and claims the user's L-BTC through its claim leaf.
  const claimed = await untilStatus(id, 'transaction.claimed');
  const ferryClaim = (await elements.getRawTransaction(claimed.claimTransaction!.txid)) as unknown as { vin: { txid: string; txinwitness: string[] }[] };
  assert.equal(ferryClaim.vin[0].txid, userLockupTxid);
  assert.ok(ferryClaim.vin[0].txinwitness.includes(preimage.toString('hex')), 'with the preimage');
});

test('zero-amount: whatever the user locks within limits is priced at creation\'s rates and Ferry locks for it; below the minimal it fails', async () => {
  const create = async () => {
    const key = Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)).toString('hex');
    const created = await api('POST', '/v2/swap/chain', {
      from: 'BTC',
      to: 'L-BTC',
      preimageHash: Buffer.from(sha256(randomBytes(32))).toString('hex'),
      claimPublicKey: key,
      refundPublicKey: key,
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal(created.json.lockupDetails.amount, 0);
    assert.equal(created.json.lockupDetails.bip21, undefined, 'no amount to ask for');
    return created.json;
  };
  const swap = await create();
  await bitcoinUser.sendToAddress(swap.lockupDetails.lockupAddress, 0.00131);
  await mineBitcoin();
  const locked = await untilStatus(swap.id, 'transaction.server.mempool');
  // Priced with the rate, percentage and miner fee fixed at creation (the fee estimate may have moved since).
  const pricing = locked.zeroAmount as { rate: number; percentage: number; serverMinerFee: number };
  assert.deepEqual([pricing.rate, pricing.percentage], [1, 0.1]);
  assert.ok(pricing.serverMinerFee > 0);
  const expected = 131_000 - Math.ceil((131_000 * pricing.percentage) / 100) - pricing.serverMinerFee;
  assert.equal(locked.serverLockup!.value, expected, 'Ferry locked the lockup less the percentage and its miner fees');

  const small = await create();
  await bitcoinUser.sendToAddress(small.lockupDetails.lockupAddress, 0.00005);
  await mineBitcoin();
  const failed = await untilStatus(small.id, 'transaction.lockupFailed');
  assert.equal(failed.failureReason, '5000 is less than minimal of 10000');
  assert.equal(failed.serverLockupRequested, undefined, 'Ferry did not lock');
});
