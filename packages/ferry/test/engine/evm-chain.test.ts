// Chain swaps BTC ⇄ RBTC end to end against a real zero-config Ferry (devnet Bitcoin node, anvil with boltz-core's
// EtherSwap), over the v2 API, the client's BTC half done with its keys and its RBTC half with ethers:
// - BTC → RBTC: Ferry locks RBTC for the claimAddress once the BTC lockup confirms (transaction.server.confirmed),
//   the user's `claim` reveals the preimage, the client co-signs Ferry's key-path claim of its BTC;
// - RBTC → BTC: the user's lock names Ferry's claimAddress, Ferry locks BTC, the client's cooperative claim of it
//   hands over the preimage and Ferry claims the RBTC from the contract;
// - unclaimed: Ferry's lockup is refunded at its timeout (first), then the user's refund is signed (MuSig2 for BTC,
//   EIP-712 for RBTC) — never before; a lock with the wrong amount fails and is refunded cooperatively at once.
// Balances are asserted on both chains, and the contract's state of each lock. Last, restore by the user's EVM
// address finds every one of these swaps by its RBTC side.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { deserializeTree } from '@ferry/sdk/chains/bitcoin/htlc.js';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { findOutput, keyPathDraft } from '@ferry/sdk/chains/bitcoin/spends.js';
import { bitcoinSwapMusig } from '@ferry/sdk/keys/index.js';
import { evmRestoreMessage } from '@ferry/sdk/protocol/index.js';
import { api, cooperativeRefund, startChainWorld, untilStatus, untilSwap, type ChainWorld, type ClientSwap } from './chain-support.ts';
import { EvmUser, WEI_PER_UNIT, gasCost, type LockValues } from './evm-chain-support.ts';

let world: ChainWorld;
let evm: EvmUser;

before(async () => {
  // Long enough for the client to co-sign Ferry's claim before Ferry claims alone.
  world = await startChainWorld('evm-chain', { claimDelayMs: 30_000 });
  evm = new EvmUser(world);
});
after(async () => {
  await world?.close();
});

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const createdSwaps: { id: string; from: string; to: string }[] = [];

/** A swap created over the API by a client with fresh keys and preimage. */
async function create(from: string, to: string, userLockAmount: number, extra: Record<string, unknown> = {}) {
  const preimage = randomBytes(32);
  const claimKey = secp256k1.utils.randomSecretKey();
  const refundKey = secp256k1.utils.randomSecretKey();
  const body = {
    from,
    to,
    preimageHash: hex(sha256(preimage)),
    ...(to === 'RBTC' ? { claimAddress: evm.wallet.address } : { claimPublicKey: hex(secp256k1.getPublicKey(claimKey, true)) }),
    ...(from === 'RBTC' ? {} : { refundPublicKey: hex(secp256k1.getPublicKey(refundKey, true)) }),
    userLockAmount,
    ...extra,
  };
  const created = await api(world, 'POST', '/v2/swap/chain', body);
  assert.equal(created.status, 201, JSON.stringify(created.json));
  createdSwaps.push({ id: created.json.id, from, to });
  return { id: created.json.id as string, preimage, claimKey, refundKey, claimDetails: created.json.claimDetails, lockupDetails: created.json.lockupDetails };
}

/** The values of a lock on the contract, from a side's details. */
const valuesOf = (preimage: Buffer, details: { amount: number; claimAddress: string; refundAddress?: string; timeoutBlockHeight: number }, refundAddress?: string): LockValues => ({
  preimageHash: `0x${hex(sha256(preimage))}`,
  amount: BigInt(details.amount) * WEI_PER_UNIT,
  claimAddress: details.claimAddress,
  refundAddress: refundAddress ?? details.refundAddress!,
  timelock: details.timeoutBlockHeight,
});

describe('creation', () => {
  test('GET /v2/swap/chain lists both directions of RBTC/BTC, priced with gas on the RBTC side', async () => {
    const pairs = (await api(world, 'GET', '/v2/swap/chain')).json;
    for (const [from, to] of [['BTC', 'RBTC'], ['RBTC', 'BTC']]) {
      const pair = pairs[from][to];
      assert.ok(pair, `${from} → ${to} listed`);
      assert.ok(pair.fees.minerFees.server > 0 && pair.fees.minerFees.user.claim > 0 && pair.fees.minerFees.user.lockup > 0);
    }
  });

  test("a quote of the last minute stays good after a block moved the gas price: the swap is priced with the quote's fees", async () => {
    const quoted = (await api(world, 'GET', '/v2/swap/chain')).json.BTC.RBTC;
    const provider = world.ferry.devnet!.evm.provider;
    const gasPrice = BigInt(await provider.send('eth_gasPrice', []));
    await provider.send('anvil_setNextBlockBaseFeePerGas', [`0x${(gasPrice * 3n).toString(16)}`]);
    await provider.send('anvil_mine', ['0x1']);
    let now = quoted;
    while (now.hash === quoted.hash) {
      await new Promise((resolve) => setTimeout(resolve, 100)); // the fee read is kept for a second
      now = (await api(world, 'GET', '/v2/swap/chain')).json.BTC.RBTC;
    }
    const late = await create('BTC', 'RBTC', 100_000, { pairHash: quoted.hash });
    const current = await create('BTC', 'RBTC', 100_000, { pairHash: now.hash });
    assert.ok(now.fees.minerFees.server > quoted.fees.minerFees.server, "Ferry's RBTC lock costs more now");
    assert.equal(late.claimDetails.amount - current.claimDetails.amount, now.fees.minerFees.server - quoted.fees.minerFees.server, "the late swap is priced with the fees its hash named");
    const forged = await api(world, 'POST', '/v2/swap/chain', { from: 'BTC', to: 'RBTC', preimageHash: hex(randomBytes(32)), claimAddress: evm.wallet.address, refundPublicKey: hex(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)), userLockAmount: 100_000, pairHash: 'ab'.repeat(32) });
    assert.deepEqual(forged, { status: 400, json: { error: 'invalid pair hash' } });
  });

  test('the request shapes of each side: claimAddress for an RBTC target, no refund key for an RBTC source', async () => {
    const preimageHash = hex(randomBytes(32));
    const key = hex(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
    const refused = async (body: Record<string, unknown>, error: RegExp) => {
      const answer = await api(world, 'POST', '/v2/swap/chain', { preimageHash, userLockAmount: 100_000, ...body });
      assert.equal(answer.status, 400, JSON.stringify(answer.json));
      assert.match(answer.json.error, error);
    };
    await refused({ from: 'BTC', to: 'RBTC', refundPublicKey: key }, /^undefined parameter: claimAddress$/);
    await refused({ from: 'BTC', to: 'RBTC', refundPublicKey: key, claimPublicKey: key, claimAddress: evm.wallet.address }, /^invalid parameter: claimPublicKey/);
    await refused({ from: 'BTC', to: 'RBTC', refundPublicKey: key, claimAddress: '0x1234' }, /^invalid parameter: claimAddress$/);
    await refused({ from: 'RBTC', to: 'BTC', claimPublicKey: key, refundPublicKey: key }, /^invalid parameter: refundPublicKey/);
    await refused({ from: 'RBTC', to: 'BTC', claimAddress: evm.wallet.address }, /^invalid parameter: claimAddress$/);
    await refused({ from: 'BTC', to: 'L-BTC', claimPublicKey: key, refundPublicKey: key, claimAddress: evm.wallet.address }, /^invalid parameter: claimAddress$/);
  });
});

describe('BTC → RBTC', () => {
  test('Ferry locks RBTC for the claimAddress; the user claims it, revealing the preimage; the client co-signs Ferry\'s claim of its BTC', async () => {
    const swap = await create('BTC', 'RBTC', 100_000);
    const { claimDetails, lockupDetails } = swap;
    assert.deepEqual(Object.keys(claimDetails).sort(), ['amount', 'claimAddress', 'lockupAddress', 'refundAddress', 'timeoutBlockHeight']);
    assert.equal(claimDetails.lockupAddress, evm.contractAddress);
    assert.equal(claimDetails.claimAddress, evm.wallet.address);
    assert.equal(claimDetails.refundAddress, evm.ferry.signer.address);
    assert.ok(lockupDetails.swapTree && lockupDetails.serverPublicKey && lockupDetails.bip21, 'the BTC side is a Taproot output');
    const values = valuesOf(swap.preimage, claimDetails);
    const ferryBefore = await evm.balance(evm.ferry.signer.address);

    const txid = await world.bitcoinUser.sendToAddress(lockupDetails.lockupAddress, lockupDetails.amount / 1e8);
    await world.btc.mine(1);
    const locked = await untilStatus(world, swap.id, 'transaction.server.confirmed');
    assert.equal(await evm.locked(values), true, 'Ferry locked exactly the claim amount for the claim address, with its timelock');
    const lockReceipt = await evm.receipt(locked.serverLockup!.txid);
    assert.equal(await evm.balance(evm.ferry.signer.address), ferryBefore - values.amount - gasCost(lockReceipt));
    const status = (await api(world, 'GET', `/v2/swap/${swap.id}`)).json;
    assert.equal(status.status, 'transaction.server.confirmed');

    const userBefore = await evm.balance();
    const claim = await evm.claim(swap.preimage, values);
    assert.equal(await evm.balance(), userBefore + values.amount - gasCost(claim), 'the user has the RBTC');
    assert.equal(await evm.locked(values), false);
    await untilStatus(world, swap.id, 'transaction.claim.pending');

    // Ferry's key-path claim of the user's BTC, co-signed by the client.
    const details = await api(world, 'GET', `/v2/swap/chain/${swap.id}/claim`);
    assert.equal(details.status, 200, JSON.stringify(details.json));
    const serverPublicKey = Buffer.from(lockupDetails.serverPublicKey, 'hex');
    const forFerry = bitcoinSwapMusig(swap.refundKey, [serverPublicKey, secp256k1.getPublicKey(swap.refundKey, true)], deserializeTree(lockupDetails.swapTree))
      .message(Buffer.from(details.json.transactionHash, 'hex'))
      .generateNonce();
    const partial = forFerry.aggregateNonces([[serverPublicKey, Buffer.from(details.json.pubNonce, 'hex')]]).initializeSession().signPartial().ourPartialSignature;
    const signed = await api(world, 'POST', `/v2/swap/chain/${swap.id}/claim`, { signature: { pubNonce: hex(forFerry.publicNonce), partialSignature: hex(partial) } });
    assert.equal(signed.status, 200, JSON.stringify(signed.json));
    const claimed = await untilStatus(world, swap.id, 'transaction.claimed');
    const output = findOutput(await world.bitcoin.getRawTransactionHex(txid), scriptOf('regtest', lockupDetails.lockupAddress))!;
    const spends = await world.btc.spendsOf(txid, output.vout, (await world.btc.height()) - 1);
    assert.deepEqual(spends.map((spend) => [spend.txid, spend.witness.length]), [[claimed.claimTransaction!.txid, 1]], "the user's BTC spent once, by Ferry's key path");
  });

  test('unclaimed: Ferry refunds its RBTC at its timelock, and only then co-signs the user\'s BTC refund', async () => {
    const swap = await create('BTC', 'RBTC', 80_000);
    const values = valuesOf(swap.preimage, swap.claimDetails);
    const txid = await world.bitcoinUser.sendToAddress(swap.lockupDetails.lockupAddress, swap.lockupDetails.amount / 1e8);
    await world.btc.mine(1);
    await untilStatus(world, swap.id, 'transaction.server.confirmed');
    const client = swap as unknown as ClientSwap;
    const early = await cooperativeRefund(world, client, txid);
    assert.equal(early.answer.status, 400, 'no refund while Ferry\'s RBTC can still be claimed');
    assert.equal((await api(world, 'GET', `/v2/swap/chain/${swap.id}/refund`)).status, 400, 'no EIP-712 signature for a BTC lockup');

    const ferryBefore = await evm.balance(evm.ferry.signer.address);
    await evm.mine(values.timelock - (await evm.height()));
    const refunded = await untilSwap(world, swap.id, (status, data) => status === 'transaction.refunded' && data.refundConfirmed === true, 'refunded in a block');
    assert.equal(await evm.locked(values), false);
    const receipt = await evm.receipt(refunded.refundTransaction!.txid);
    assert.equal(await evm.balance(evm.ferry.signer.address), ferryBefore + values.amount - gasCost(receipt), 'Ferry has its RBTC back');

    const userBefore = await world.btc.balance(world.bitcoinUser);
    const { answer, refund } = await cooperativeRefund(world, client, txid);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    await world.bitcoin.sendRawTransaction(refund!.hex);
    assert.equal(await world.btc.balance(world.bitcoinUser), userBefore + BigInt(swap.lockupDetails.amount) - (await world.btc.fee(refund!.txid)), 'the user has its BTC back');
  });
});

describe('RBTC → BTC', () => {
  /** The user's lock of `amount` sat (the swap's amount unless given), confirmed by the contract's state. */
  async function lockRbtc(swap: Awaited<ReturnType<typeof create>>, amount = swap.lockupDetails.amount) {
    const values = valuesOf(swap.preimage, { ...swap.lockupDetails, amount }, evm.wallet.address);
    const receipt = await evm.lock(values);
    assert.equal(await evm.locked(values), true);
    return { values, receipt };
  }

  test('the user locks for Ferry; Ferry locks BTC; the client\'s cooperative claim hands over the preimage and Ferry claims the RBTC', async () => {
    const swap = await create('RBTC', 'BTC', 100_000);
    const { claimDetails, lockupDetails } = swap;
    assert.deepEqual(Object.keys(lockupDetails).sort(), ['amount', 'claimAddress', 'lockupAddress', 'timeoutBlockHeight']);
    assert.equal(lockupDetails.claimAddress, evm.ferry.signer.address);
    assert.ok(claimDetails.swapTree && claimDetails.serverPublicKey, 'the BTC side is a Taproot output');
    const ferryBefore = await evm.balance(evm.ferry.signer.address);
    const { values } = await lockRbtc(swap);
    const locked = await untilStatus(world, swap.id, 'transaction.server.mempool');
    const serverLockup = locked.serverLockup!;

    // The client's key-path claim of Ferry's BTC, with the preimage: Ferry co-signs and claims the RBTC.
    const output = findOutput(await world.bitcoin.getRawTransactionHex(serverLockup.txid), scriptOf('regtest', claimDetails.lockupAddress))!;
    assert.equal(output.value, BigInt(claimDetails.amount));
    const draft = keyPathDraft({ output, destination: scriptOf('regtest', await world.bitcoinUser.getNewAddress()), feeRate: 2 });
    const serverPublicKey = Buffer.from(claimDetails.serverPublicKey, 'hex');
    const ours = bitcoinSwapMusig(swap.claimKey, [serverPublicKey, secp256k1.getPublicKey(swap.claimKey, true)], deserializeTree(claimDetails.swapTree))
      .message(draft.sighash)
      .generateNonce();
    const answer = await api(world, 'POST', `/v2/swap/chain/${swap.id}/claim`, {
      preimage: swap.preimage.toString('hex'),
      toSign: { pubNonce: hex(ours.publicNonce), transaction: draft.unsignedHex, index: 0 },
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    const signature = ours
      .aggregateNonces([[serverPublicKey, Buffer.from(answer.json.pubNonce, 'hex')]])
      .initializeSession()
      .signPartial()
      .addPartial(serverPublicKey, Buffer.from(answer.json.partialSignature, 'hex'))
      .aggregatePartials();
    const userBefore = await world.btc.balance(world.bitcoinUser);
    const claim = draft.finish(signature);
    await world.bitcoin.sendRawTransaction(claim.hex);
    assert.equal(await world.btc.balance(world.bitcoinUser), userBefore + BigInt(claimDetails.amount) - (await world.btc.fee(claim.txid)), 'the user has the BTC');

    const claimed = await untilStatus(world, swap.id, 'transaction.claimed');
    assert.equal(await evm.locked(values), false, "Ferry claimed the user's lock");
    const receipt = await evm.receipt(claimed.claimTransaction!.txid);
    assert.equal(await evm.balance(evm.ferry.signer.address), ferryBefore + values.amount - gasCost(receipt), 'Ferry has the RBTC');
  });

  test('unclaimed: Ferry refunds its BTC at its timeout; only then is the EIP-712 refund signed, and the user takes its RBTC back at once', async () => {
    const swap = await create('RBTC', 'BTC', 90_000);
    const { values } = await lockRbtc(swap);
    const locked = await untilStatus(world, swap.id, 'transaction.server.mempool');
    assert.equal((await api(world, 'GET', `/v2/swap/chain/${swap.id}/refund`)).status, 400, "no signature while Ferry's BTC can be claimed");
    const refuseMusig = await api(world, 'POST', `/v2/swap/chain/${swap.id}/refund`, { pubNonce: '02'.repeat(66), transaction: '00', index: 0 });
    assert.equal(refuseMusig.status, 400);

    await world.btc.mineTo(swap.claimDetails.timeoutBlockHeight);
    await untilStatus(world, swap.id, 'transaction.refunded');
    await world.btc.mine(1);
    await untilSwap(world, swap.id, (_, data) => data.refundConfirmed === true, 'refund confirmed');
    const output = findOutput(await world.bitcoin.getRawTransactionHex(locked.serverLockup!.txid), scriptOf('regtest', swap.claimDetails.lockupAddress))!;
    assert.equal(await world.btc.unspentValue(locked.serverLockup!.txid, output.vout), undefined, "Ferry's BTC lockup is spent (refunded)");

    const signed = await api(world, 'GET', `/v2/swap/chain/${swap.id}/refund`);
    assert.equal(signed.status, 200, JSON.stringify(signed.json));
    const userBefore = await evm.balance();
    const refund = await evm.refundCooperative(values, signed.json.signature);
    assert.equal(await evm.locked(values), false);
    assert.equal(await evm.balance(), userBefore + values.amount - gasCost(refund), 'the user has its RBTC back before its timelock');
    assert.ok((await evm.height()) < values.timelock);
  });

  test('a lock of the wrong amount fails the swap; Ferry never locks and signs its refund at once', async () => {
    const swap = await create('RBTC', 'BTC', 100_000);
    const { values } = await lockRbtc(swap, swap.lockupDetails.amount - 1);
    const failed = await untilStatus(world, swap.id, 'transaction.lockupFailed');
    assert.match(failed.failureReason!, /less than expected/);
    assert.equal(failed.serverLockup, undefined);
    const signed = await api(world, 'GET', `/v2/swap/chain/${swap.id}/refund`);
    assert.equal(signed.status, 200, JSON.stringify(signed.json));
    await evm.refundCooperative(values, signed.json.signature);
    assert.equal(await evm.locked(values), false);
  });

  test('a lock naming another claim address fails the swap and gets no signature of Ferry\'s', async () => {
    const swap = await create('RBTC', 'BTC', 100_000);
    const values = valuesOf(swap.preimage, { ...swap.lockupDetails, claimAddress: evm.wallet.address }, evm.wallet.address);
    await evm.lock(values);
    const failed = await untilStatus(world, swap.id, 'transaction.lockupFailed');
    assert.match(failed.failureReason!, /invalid claim address/);
    const refused = await api(world, 'GET', `/v2/swap/chain/${swap.id}/refund`);
    assert.equal(refused.status, 400);
    assert.match(refused.json.error, /does not name Ferry/);
  });
});

describe('restore by EVM address', () => {
  test("every chain swap above by its RBTC side: the claim address of BTC → RBTC, the user's lock's refund address of RBTC → BTC", async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const address = evm.wallet.address;
    const answer = await api(world, 'POST', '/v2/swap/restore', { address, timestamp, signature: await evm.wallet.signMessage(evmRestoreMessage(address, timestamp)) });
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    const found = new Map<string, any>(answer.json.map((swap: any) => [swap.id, swap]));
    // RBTC → BTC swaps the user never locked name no address of the user's yet.
    const expected = createdSwaps.filter(({ id, from }) => from === 'BTC' || found.has(id));
    assert.ok(expected.filter((s) => s.from === 'RBTC').length >= 3, 'the locked RBTC → BTC swaps are found');
    assert.deepEqual([...found.keys()].sort(), expected.map((s) => s.id).sort());
    for (const { id, from } of expected) {
      const swap = found.get(id);
      assert.equal(swap.type, 'chain');
      // The BTC side needs a key index: a key search answers it, not an address search.
      const [evmSide, other] = from === 'BTC' ? [swap.claimDetails, swap.refundDetails] : [swap.refundDetails, swap.claimDetails];
      assert.equal(other, undefined, id);
      assert.equal(evmSide.type, 'evm');
      assert.equal(evmSide.contractAddress.toLowerCase(), evm.contractAddress.toLowerCase());
      assert.equal(evmSide.claimAddress, from === 'BTC' ? address : evm.ferry.signer.address);
      assert.ok(evmSide.amount > 0 && evmSide.timeoutBlockHeight > 0);
    }
  });
});
