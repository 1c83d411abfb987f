// Reverse swaps Lightning → RBTC on the devnet's anvil, through the engine: alice pays the hold invoice, Ferry
// locks in EtherSwap for the client's claim address (checked in swaps(hash)), the client claims with the preimage
// as boltz-core's ABI takes it and Ferry settles from the Claim event; an unclaimed lock is refunded to Ferry after
// the timelock and the held payment given back.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Contract, Interface, Wallet, sha256, toQuantity, type ContractTransactionResponse } from 'ethers';
import { artifact } from '@ferry/devnet/evm/contracts.js';
import { DEFAULT_BTC_PAIR, type PairConfig } from '../../src/swaps/pairs.ts';
import type { CreateEvmReverseResponse, SwapStatusBody } from '@ferry/sdk/protocol/index.js';
import { startWorld, type World } from './world.ts';

// A short reverse timeout, so the refund test mines few blocks.
const RBTC_PAIR: PairConfig = {
  ...DEFAULT_BTC_PAIR,
  id: 'RBTC/BTC',
  base: 'RBTC',
  limits: { ...DEFAULT_BTC_PAIR.limits, maximalZeroConf: 0 },
  timeouts: { reverse: 200, swapMinimal: 2880, swapMaximal: 5760 },
};
const WEI_PER_UNIT = 10n ** 10n;
const etherSwapAbi = new Interface(artifact('etherSwap').abi);

describe('reverse swaps Lightning → RBTC', () => {
  let world: World;
  let user: Wallet;
  let etherSwap: Contract;

  before(async () => {
    world = await startWorld({ pairs: [DEFAULT_BTC_PAIR, RBTC_PAIR], evm: {} });
    user = world.evm!.user;
    etherSwap = new Contract(world.evm!.chain.contractAddress, etherSwapAbi, user);
  });
  after(async () => {
    await world?.close();
  });

  async function statusOf(id: string, wanted: string, timeoutMs = 20_000): Promise<SwapStatusBody> {
    const deadline = Date.now() + timeoutMs;
    let last: SwapStatusBody | undefined;
    while (Date.now() < deadline) {
      await world.evm!.chain.sync().catch(() => {});
      await world.engine.pollInvoices();
      last = await world.engine.status(id);
      if (last?.status === wanted) return last;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`swap ${id} did not reach ${wanted}; it is ${JSON.stringify(last)} (seen: ${world.published.get(id)?.join(' → ')})`);
  }

  /** Creates a swap for the user's address, has alice pay it, and waits for Ferry's lock; the lock's values. */
  async function lockedSwap(invoiceAmount: number) {
    const preimage = randomBytes(32);
    const preimageHash = sha256(preimage).slice(2);
    const created = (await world.engine.createReverse({ from: 'BTC', to: 'RBTC', preimageHash, claimAddress: user.address, invoiceAmount })) as CreateEvmReverseResponse &
      Record<string, unknown>;
    const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 });
    await statusOf(created.id, 'transaction.confirmed');
    const values = {
      preimageHash: `0x${preimageHash}`,
      amount: BigInt(created.onchainAmount) * WEI_PER_UNIT,
      claimAddress: user.address,
      refundAddress: created.refundAddress,
      timelock: created.timeoutBlockHeight,
    };
    return { preimage, created, payment, values };
  }

  const locked = async (values: { preimageHash: string; amount: bigint; claimAddress: string; refundAddress: string; timelock: number }): Promise<boolean> =>
    etherSwap.getFunction('swaps')(await etherSwap.getFunction('hashValues')(values.preimageHash, values.amount, values.claimAddress, values.refundAddress, values.timelock));

  test('Ferry locks for the claim address once the payment is held; the user claims, Ferry settles from the Claim event', async () => {
    const pair = (await world.engine.reversePairs()).BTC.RBTC;
    assert.ok(pair.fees.minerFees.lockup > 0 && pair.fees.minerFees.claim > 0);
    const ferryBefore = await world.evm!.backend.balance();
    const { preimage, created, payment, values } = await lockedSwap(60_000);
    assert.equal(created.lockupAddress, world.evm!.chain.contractAddress);
    assert.equal(created.refundAddress, world.evm!.backend.signer.address);
    assert.equal(created.swapTree, undefined);
    assert.equal(created.timeoutBlockHeight, (await world.evm!.backend.height()) - 1 + 200, 'the timeout counts from creation (one block before the lock)');
    assert.equal(await locked(values), true, 'Ferry locked exactly the onchain amount for the user');
    const lockTx = (await world.storage.swaps.get(created.id))!.data.lockup as { txid: string };
    const lockReceipt = (await world.devnet.evm.provider.getTransactionReceipt(lockTx.txid))!;
    assert.equal(await world.evm!.backend.balance(), ferryBefore - values.amount - lockReceipt.gasUsed * lockReceipt.gasPrice);

    const userBefore = await world.evm!.backend.balance(user.address);
    const claim = etherSwap.getFunction('claim(bytes32,uint256,address,uint256)');
    const sent = (await claim(`0x${preimage.toString('hex')}`, values.amount, values.refundAddress, values.timelock)) as ContractTransactionResponse;
    const receipt = (await sent.wait())!;
    await statusOf(created.id, 'invoice.settled');
    assert.deepEqual(world.published.get(created.id), ['swap.created', 'transaction.confirmed', 'invoice.settled']);
    assert.equal((await payment).status, 'SUCCEEDED', "alice's payment went through");
    assert.equal(await locked(values), false);
    assert.equal(await world.evm!.backend.balance(user.address), userBefore + values.amount - receipt.gasUsed * receipt.gasPrice, 'the user has the amount');
  });

  test('an unclaimed lock: the user cannot refund it, Ferry refunds it after the timelock and gives the payment back', async () => {
    const { created, payment, values } = await lockedSwap(45_000);
    const refund = etherSwap.getFunction('refund(bytes32,uint256,address,uint256)');
    await assert.rejects(refund.staticCall(values.preimageHash, values.amount, values.claimAddress, values.timelock), /revert|SwapNotTimedOut/, 'not timed out yet');
    const ferryBefore = await world.evm!.backend.balance();
    await world.devnet.evm.provider.send('anvil_mine', [toQuantity(created.timeoutBlockHeight - (await world.evm!.backend.height()))]);
    await statusOf(created.id, 'transaction.refunded');
    assert.equal(await locked(values), false);
    const refundTx = ((await world.storage.swaps.get(created.id))!.data.refundTransaction as { txid: string }).txid;
    const receipt = (await world.devnet.evm.provider.getTransactionReceipt(refundTx))!;
    assert.equal(receipt.from, world.evm!.backend.signer.address);
    assert.equal(await world.evm!.backend.balance(), ferryBefore + values.amount - receipt.gasUsed * receipt.gasPrice, 'Ferry has its lock back');
    assert.equal((await payment).status, 'FAILED', 'the held payment was given back');
    assert.equal((await world.storage.swaps.get(created.id))!.data.refundConfirmed, true);
  });
});
