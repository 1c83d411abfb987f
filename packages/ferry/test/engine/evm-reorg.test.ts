// Reorgs of the EVM chain (anvil's evm_snapshot / evm_revert, then new blocks at the same heights) taking back a
// lockup Ferry already acted on:
// - Ferry's own lock of a reverse swap: Ferry locks again with the same values (EtherSwap refuses a second lock of
//   the same values), so one lock stands, Ferry paid for one, and the client still claims;
// - the user's lock of a submarine swap after Ferry paid the invoice: Ferry records no claim while it is gone (the
//   swap stays transaction.claim.pending), and claims once the lock is back — once.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Contract, Interface, sha256, toQuantity, type ContractTransactionResponse, type EventLog } from 'ethers';
import { artifact } from '@ferry/devnet/evm/contracts.js';
import { DEFAULT_BTC_PAIR, type PairConfig } from '../../src/swaps/pairs.ts';
import type { CreateEvmReverseResponse, CreateEvmSubmarineResponse } from '@ferry/sdk/protocol/index.js';
import { rest } from '../lightning/helpers.ts';
import { startWorld, type World } from './world.ts';

const RBTC_PAIR: PairConfig = {
  ...DEFAULT_BTC_PAIR,
  id: 'RBTC/BTC',
  base: 'RBTC',
  limits: { ...DEFAULT_BTC_PAIR.limits, maximalZeroConf: 0 },
  timeouts: { reverse: 200, swapMinimal: 2880, swapMaximal: 5760 },
};
const WEI_PER_UNIT = 10n ** 10n;
const etherSwapAbi = new Interface(artifact('etherSwap').abi);

describe('EVM reorgs after Ferry acted', () => {
  let world: World;
  let etherSwap: Contract;

  before(async () => {
    // A slow claim batch leaves room for the reorg between Ferry's payment and its claim.
    world = await startWorld({ pairs: [DEFAULT_BTC_PAIR, RBTC_PAIR], evm: { claimBatchMs: 3_000 } });
    etherSwap = new Contract(world.evm!.chain.contractAddress, etherSwapAbi, world.evm!.user);
  });
  after(async () => {
    await world?.close();
  });

  const provider = () => world.devnet.evm.provider;
  const mine = (blocks: number) => provider().send('anvil_mine', [toQuantity(blocks)]);

  async function until(id: string, wanted: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      await world.evm!.chain.sync().catch(() => {});
      await world.engine.pollInvoices();
      if ((await world.engine.status(id))?.status === wanted) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`swap ${id} did not reach ${wanted} (seen: ${world.published.get(id)?.join(' → ')})`);
  }

  const locked = async (values: { preimageHash: string; amount: bigint; claimAddress: string; refundAddress: string; timelock: number }) =>
    etherSwap.getFunction('swaps')(await etherSwap.getFunction('hashValues')(values.preimageHash, values.amount, values.claimAddress, values.refundAddress, values.timelock));

  /** The Lockup events of a preimage hash on the chain as it is now. */
  const lockups = async (preimageHash: string) => (await etherSwap.queryFilter(etherSwap.filters.Lockup(preimageHash))) as EventLog[];

  /** Takes the chain back to the snapshot and mines past the lost tip, so the follower sees other blocks there. */
  async function reorgTo(snapshot: string, lostTip: number): Promise<void> {
    assert.equal(await provider().send('evm_revert', [snapshot]), true);
    await mine(lostTip - (await provider().getBlockNumber()) + 2);
    await world.evm!.chain.sync();
  }

  test("Ferry's lock taken back: Ferry locks again with the same values, pays for one lock, and the client claims", async () => {
    const user = world.evm!.user;
    const preimage = randomBytes(32);
    const preimageHash = sha256(preimage).slice(2);
    const created = (await world.engine.createReverse({ from: 'BTC', to: 'RBTC', preimageHash, claimAddress: user.address, invoiceAmount: 50_000 })) as CreateEvmReverseResponse;
    const values = { preimageHash: `0x${preimageHash}`, amount: BigInt(created.onchainAmount) * WEI_PER_UNIT, claimAddress: user.address, refundAddress: created.refundAddress, timelock: created.timeoutBlockHeight };
    const ferryBefore = await world.evm!.backend.balance();
    const snapshot: string = await provider().send('evm_snapshot', []);
    const payment = world.alice.payInvoice({ paymentRequest: created.invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 });
    await until(created.id, 'transaction.confirmed');
    const [lost] = await lockups(values.preimageHash);
    await mine(2);
    await world.evm!.chain.sync();

    await reorgTo(snapshot, lost.blockNumber + 2);
    const deadline = Date.now() + 10_000;
    while (!(await locked(values)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await locked(values), true, 'locked again on the new chain');
    const standing = await lockups(values.preimageHash);
    assert.equal(standing.length, 1, 'one lock on the chain');
    assert.notEqual(standing[0].transactionHash, lost.transactionHash);
    const receipt = (await provider().getTransactionReceipt(standing[0].transactionHash))!;
    assert.equal(await world.evm!.backend.balance(), ferryBefore - values.amount - receipt.gasUsed * receipt.gasPrice, 'Ferry paid for one lock');

    const claim = etherSwap.getFunction('claim(bytes32,uint256,address,uint256)');
    await ((await claim(`0x${preimage.toString('hex')}`, values.amount, values.refundAddress, values.timelock)) as ContractTransactionResponse).wait();
    await until(created.id, 'invoice.settled');
    assert.equal((await payment).status, 'SUCCEEDED');
  });

  test("the user's lock taken back after Ferry paid: transaction.lockupFailed, no claim recorded while it is gone; once it is back, Ferry claims it once", async () => {
    const { body } = await rest<{ payment_request: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', { value: 30_000, memo: 'reorg test' });
    const created = (await world.engine.createSubmarine({ from: 'RBTC', to: 'BTC', invoice: body.payment_request })) as CreateEvmSubmarineResponse;
    const decoded = await world.ferryNode.decodeInvoice(body.payment_request);
    const values = {
      preimageHash: `0x${decoded.paymentHash}`,
      amount: BigInt(created.expectedAmount!) * WEI_PER_UNIT,
      claimAddress: created.claimAddress,
      refundAddress: world.evm!.user.address,
      timelock: created.timeoutBlockHeight,
    };
    const lock = () => etherSwap.getFunction('lock(bytes32,address,uint256)')(values.preimageHash, values.claimAddress, values.timelock, { value: values.amount }) as Promise<ContractTransactionResponse>;
    const snapshot: string = await provider().send('evm_snapshot', []);
    const lost = (await (await lock()).wait())!;
    await until(created.id, 'transaction.claim.pending');

    const ferryBefore = await world.evm!.backend.balance();
    await reorgTo(snapshot, lost.blockNumber);
    assert.equal(await locked(values), false, 'the lock is gone');
    // The lock Ferry paid against is lost: a failed status, not a claim recorded for a lock that is gone.
    await world.evm!.chain.sync();
    await until(created.id, 'transaction.lockupFailed');
    const failed = await world.engine.status(created.id);
    assert.equal(failed?.failureReason, 'the lockup transaction left the chain after Ferry acted on it');
    assert.equal(await world.evm!.backend.balance(), ferryBefore, 'nothing claimed');

    await (await lock()).wait(); // the user's lock mined again on the new chain
    await until(created.id, 'transaction.claimed');
    assert.equal(await locked(values), false);
    const claims = (await etherSwap.queryFilter(etherSwap.filters.Claim(values.preimageHash))) as EventLog[];
    assert.equal(claims.length, 1, 'claimed once');
    const receipt = (await provider().getTransactionReceipt(claims[0].transactionHash))!;
    assert.equal(await world.evm!.backend.balance(), ferryBefore + values.amount - receipt.gasUsed * receipt.gasPrice);
  });
});
