// RBTC swaps end to end against a real Ferry (embedded devnet, anvil with boltz-core 4.x's EtherSwap, version 6),
// done by unchanged Boltz-compatible wallet code: ethers v6 with boltz-core's EtherSwap ABI and a key of its own
// (test/helpers/evm-swap-wallet.ts). Submarine: lock, Ferry pays alice and claims from the contract. Reverse: alice
// pays, Ferry locks, the wallet claims, Ferry settles. Failed submarine swaps: refunded with Ferry's EIP-712
// signature, or after the timelock from values recovered from the Lockup logs. And a wallet on boltz-core 2.x's ABI
// (version 4): what still works against version 6 and what does not. Asserted on balances, the contract's swaps()
// state and events, and the Lightning nodes.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { UndecodedEventLog, getAddress, sha256, toQuantity, type TransactionReceipt } from 'ethers';
import { WEI_PER_UNIT, type EvmSubmarine, type EvmSwapWallet } from '../../helpers/evm-swap-wallet.ts';
import { assertStatusOrder, withFerryLog } from './support/assertions.ts';
import { startWorld, type World } from './support/world.ts';
import { statusStream } from '../../api/v1-support.ts';

let world: World;

before(async () => {
  world = await startWorld();
});

after(async () => {
  await world?.close();
});

const SUCCESS = ['transaction.claimed', 'transaction.claim.pending'];

/** What a transaction cost its sender. */
const gas = (receipt: TransactionReceipt): bigint => receipt.gasUsed * receipt.gasPrice;

/** A swap for an invoice alice's channel with Ferry cannot carry: Ferry's payment fails after the lockup. */
async function unpayableSwap(wallet: EvmSwapWallet): Promise<{ swap: EvmSubmarine; paymentHash: string }> {
  const amount = Number(await world.lightning.localBalanceWith('ferry', 'alice')) + 100_000;
  assert.ok(amount <= (await wallet.submarinePair()).limits.maximal);
  const { invoice, paymentHash } = await world.lightning.addInvoice('alice', amount);
  return { swap: await wallet.createSubmarine(invoice), paymentHash };
}

describe('RBTC swaps by Boltz-compatible wallet code', { timeout: 600_000 }, () => {
  test('submarine RBTC → Lightning: the wallet locks, Ferry pays alice and claims from the contract', async () => {
    await withFerryLog(world, async () => {
      const { lightning } = world;
      const wallet = await world.evmWallet('boltz-core 4.x');
      const { invoice, paymentHash } = await lightning.addInvoice('alice', 40_000);
      const aliceBefore = await lightning.balance('alice');
      const swap = await wallet.createSubmarine(invoice);
      const [walletBefore, contractBefore, ferryBefore] = await Promise.all([wallet.balance(), wallet.balance(swap.contract), wallet.balance(swap.claimAddress)]);

      const { values, receipt } = await wallet.lock(swap);
      assert.equal(await wallet.isLocked(values), true);
      assert.equal(await wallet.balance(), walletBefore - values.amount - gas(receipt));
      await wallet.status.waitFor(swap.id, SUCCESS);
      await wallet.status.waitFor(swap.id, 'transaction.claimed');
      assertStatusOrder(wallet.status.statuses(swap.id), ['invoice.set', 'transaction.confirmed', 'invoice.paid', 'transaction.claimed']);

      assert.equal((await lightning.invoice('alice', paymentHash)).state, 'SETTLED');
      assert.equal((await lightning.balance('alice')).localMsat - aliceBefore.localMsat, 40_000_000n, 'alice was paid once');
      assert.equal(await wallet.isLocked(values), false, 'claimed out of the contract');
      assert.equal(await wallet.balance(swap.contract), contractBefore);
      const claims = await wallet.etherSwap.queryFilter(wallet.etherSwap.filters.Claim(swap.preimageHash), receipt.blockNumber);
      assert.equal(claims.length, 1, 'claimed once');
      const claimReceipt = (await wallet.provider.getTransactionReceipt(claims[0].transactionHash))!;
      assert.equal(claimReceipt.from, swap.claimAddress, 'by Ferry, the claim address');
      assert.equal(sha256((claims[0] as unknown as { args: { preimage: string } }).args.preimage), swap.preimageHash, 'with the invoice preimage');
      assert.equal(await wallet.balance(swap.claimAddress), ferryBefore + values.amount - gas(claimReceipt), "Ferry's account has the lockup, less its gas");
    });
  });

  test('reverse Lightning → RBTC: alice pays, Ferry locks for the wallet, the wallet claims and the invoice settles', async () => {
    await withFerryLog(world, async () => {
      const { lightning } = world;
      const wallet = await world.evmWallet('boltz-core 4.x');
      const swap = await wallet.createReverse(50_000);
      const payment = lightning.pay('alice', swap.invoice);
      await wallet.status.waitFor(swap.id, 'transaction.confirmed');
      const values = await wallet.serviceLockup(swap);
      const [logged] = await wallet.lockupLogs(swap.preimageHash);
      assert.equal((logged as unknown as { args: { refundAddress: string } }).args.refundAddress, swap.refundAddress, "Ferry's lock, its Lockup event");

      const before = await wallet.balance();
      const receipt = await wallet.claim(swap, values);
      assert.equal(await wallet.balance(), before + values.amount - gas(receipt), 'the wallet has the onchain amount, less its gas');
      assert.equal(await wallet.isLocked(values), false);
      await wallet.status.waitFor(swap.id, 'invoice.settled');
      assertStatusOrder(wallet.status.statuses(swap.id), ['swap.created', 'transaction.confirmed', 'invoice.settled']);
      assert.equal((await payment).status, 'SUCCEEDED', "alice's payment went through");
      assert.equal((await lightning.invoice('ferry', swap.preimageHash.slice(2))).state, 'SETTLED', "Ferry's hold invoice settled");
    });
  });

  test('v1 submarine RBTC → Lightning: /createswap answers the contract and claim address, the wallet locks, Ferry pays alice', async () => {
    await withFerryLog(world, async () => {
      const { lightning } = world;
      const wallet = await world.evmWallet('boltz-core 4.x');
      const pairs = await wallet.api.expect('GET', '/getpairs', undefined, 200);
      const { invoice, paymentHash } = await lightning.addInvoice('alice', 30_000);
      const body = await wallet.api.expect('POST', '/createswap', { type: 'submarine', pairId: 'RBTC/BTC', orderSide: 'sell', invoice, pairHash: pairs.pairs['RBTC/BTC'].hash }, 201);
      assert.deepEqual(Object.keys(body).sort(), ['acceptZeroConf', 'address', 'claimAddress', 'expectedAmount', 'id', 'timeoutBlockHeight']);
      const swap = await wallet.status.follow(await wallet.checkSubmarine(body, invoice, await wallet.submarinePair()));
      const sse = statusStream(world.ferry.apiUrl, swap.id);
      const aliceBefore = await lightning.balance('alice');
      const { values } = await wallet.lock(swap);
      await wallet.status.waitFor(swap.id, 'transaction.claimed');
      assert.equal((await wallet.api.expect('POST', '/swapstatus', { id: swap.id }, 200)).status, 'transaction.claimed');
      await new Promise((resolve) => setTimeout(resolve, 200));
      await sse.close();
      assert.deepEqual([sse.statuses()[0], sse.statuses().at(-1)], ['invoice.set', 'transaction.claimed'], `v1 SSE: ${sse.statuses().join(' ')}`);
      assert.equal((await lightning.invoice('alice', paymentHash)).state, 'SETTLED');
      assert.equal((await lightning.balance('alice')).localMsat - aliceBefore.localMsat, 30_000_000n, 'alice was paid once');
      assert.equal(await wallet.isLocked(values), false, 'Ferry claimed from the contract');
    });
  });

  test('v1 reverse Lightning → RBTC with prepayMinerFee: both invoices paid, Ferry locks and sends the gas, the wallet claims', async () => {
    await withFerryLog(world, async () => {
      const { lightning } = world;
      const wallet = await world.evmWallet('boltz-core 4.x');
      const preimage = randomBytes(32);
      const preimageHash = sha256(preimage);
      const request = { type: 'reversesubmarine', pairId: 'RBTC/BTC', orderSide: 'buy', invoiceAmount: 60_000, preimageHash: preimageHash.slice(2), claimAddress: wallet.address, prepayMinerFee: true };
      const body = await wallet.api.expect('POST', '/createswap', request, 201);
      assert.deepEqual(Object.keys(body).sort(), ['id', 'invoice', 'lockupAddress', 'minerFeeInvoice', 'onchainAmount', 'prepayMinerFeeAmount', 'refundAddress', 'timeoutBlockHeight']);
      assert.equal(getAddress(body.lockupAddress), await wallet.etherSwap.getAddress());
      const swap = await wallet.status.follow({ id: body.id, preimage: `0x${preimage.toString('hex')}`, preimageHash, invoice: body.invoice, contract: getAddress(body.lockupAddress), refundAddress: getAddress(body.refundAddress), onchainAmount: body.onchainAmount, timeoutBlockHeight: body.timeoutBlockHeight });
      const before = await wallet.balance();
      const gasPayment = lightning.pay('alice', body.minerFeeInvoice);
      await wallet.status.waitFor(swap.id, 'minerfee.paid');
      const payment = lightning.pay('alice', swap.invoice);
      await wallet.status.waitFor(swap.id, 'transaction.confirmed');
      assert.equal(await wallet.balance(), before + BigInt(body.prepayMinerFeeAmount) * WEI_PER_UNIT, 'the gas arrived with the lock');
      assert.equal((await gasPayment).status, 'SUCCEEDED');
      const values = await wallet.serviceLockup(swap);
      const receipt = await wallet.claim(swap, values);
      assert.equal(await wallet.isLocked(values), false);
      assert.ok(gas(receipt) <= BigInt(body.prepayMinerFeeAmount) * WEI_PER_UNIT, 'the prepaid gas paid for the claim');
      await wallet.status.waitFor(swap.id, 'invoice.settled');
      assert.equal((await payment).status, 'SUCCEEDED');
    });
  });

  test('failed submarine: invoice.failedToPay, then refundCooperative with the EIP-712 signature returns the lockup', async () => {
    await withFerryLog(world, async () => {
      const wallet = await world.evmWallet('boltz-core 4.x');
      const { swap, paymentHash } = await unpayableSwap(wallet);
      const { values } = await wallet.lock(swap);
      await wallet.status.waitFor(swap.id, 'invoice.failedToPay');
      assert.equal((await world.lightning.invoice('alice', paymentHash)).state, 'OPEN', 'alice was not paid');
      await assert.rejects(wallet.refundWouldRevert(values), /SwapNotTimedOut|revert/, 'alone, the wallet must wait for the timelock');

      const before = await wallet.balance();
      const receipt = await wallet.cooperativeRefund(swap, values);
      assert.equal(await wallet.isLocked(values), false);
      assert.equal(await wallet.balance(), before + values.amount - gas(receipt), 'the lockup is back, less the gas');
      assert.equal((await wallet.etherSwap.queryFilter(wallet.etherSwap.filters.Refund(swap.preimageHash), receipt.blockNumber)).length, 1);
    });
  });

  test('a wallet on boltz-core 2.x\'s ABI: lock, claim and refundCooperative work on version 6; Lockup logs do not decode', async () => {
    await withFerryLog(world, async () => {
      const { lightning } = world;
      const wallet = await world.evmWallet('boltz-core 2.x');
      assert.equal(await wallet.etherSwap.getFunction('version')(), 6n, "2.x's version() getter reads 4.x's pure function");

      const { invoice, paymentHash } = await lightning.addInvoice('alice', 30_000);
      const submarine = await wallet.createSubmarine(invoice);
      const locked = await wallet.lock(submarine);
      await wallet.status.waitFor(submarine.id, SUCCESS);
      assert.equal((await lightning.invoice('alice', paymentHash)).state, 'SETTLED');

      const reverse = await wallet.createReverse(35_000);
      const payment = lightning.pay('alice', reverse.invoice);
      await wallet.status.waitFor(reverse.id, 'transaction.confirmed');
      const values = await wallet.serviceLockup(reverse);
      const before = await wallet.balance();
      const receipt = await wallet.claim(reverse, values);
      assert.equal(await wallet.balance(), before + values.amount - gas(receipt));
      await wallet.status.waitFor(reverse.id, 'invoice.settled');
      assert.equal((await payment).status, 'SUCCEEDED');

      // The service signs for the deployed version (domain "6", field timelock); the wallet only passes v, r, s on.
      const failed = await unpayableSwap(wallet);
      const failedLock = await wallet.lock(failed.swap);
      await wallet.status.waitFor(failed.swap.id, 'invoice.failedToPay');
      const refundBefore = await wallet.balance();
      const refund = await wallet.cooperativeRefund(failed.swap, failedLock.values);
      assert.equal(await wallet.balance(), refundBefore + failedLock.values.amount - gas(refund));

      // 4.x indexes claimAddress too: 2.x's Lockup(preimageHash, refundAddress) filter matches the claim address'
      // topic, and 2.x's event cannot decode 4.x's data (amount, timelock without claimAddress).
      assert.deepEqual(await wallet.recoverLockups(), [], 'a refundAddress filter on the 2.x ABI finds nothing');
      const logs = await wallet.lockupLogs(locked.values.preimageHash);
      assert.equal(logs.length, 1);
      assert.ok(logs[0] instanceof UndecodedEventLog, '4.x Lockup logs do not decode with the 2.x ABI');
    });
  });

  // Last: it mines past a timelock of thousands of blocks.
  test('failed submarine, wallet store lost: Lockup logs by refundAddress give the values, refunded after the timelock', async () => {
    await withFerryLog(world, async () => {
      const wallet = await world.evmWallet('boltz-core 4.x');
      const { swap } = await unpayableSwap(wallet);
      const { values } = await wallet.lock(swap);
      await wallet.status.waitFor(swap.id, 'invoice.failedToPay');

      const recovered = await wallet.recoverLockups();
      assert.deepEqual(recovered, [values], 'the Lockup event names every value refund takes');
      await assert.rejects(wallet.refundWouldRevert(values), /SwapNotTimedOut|revert/);
      await wallet.provider.send('anvil_mine', [toQuantity(values.timelock - (await wallet.height()))]);
      const before = await wallet.balance();
      const receipt = await wallet.refund(recovered[0]);
      assert.equal(await wallet.isLocked(values), false);
      assert.equal(await wallet.balance(), before + values.amount - gas(receipt));
      assert.deepEqual(await wallet.recoverLockups(), [], 'nothing left to refund');
    });
  });
});
