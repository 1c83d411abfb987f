// Submarine swaps RBTC → Lightning on the devnet's anvil, through the engine with boltz-core's EtherSwap as the
// wallet calls it (ethers): the user's `lock`, Ferry's payment and its claim (several due together go out as one
// claimBatch), asserted on the contract (swaps(hash)), the accounts' balances and alice's invoice; lockups with
// the wrong amount, claim address, timelock or preimage hash are not paid; the EIP-712 cooperative refund of a
// failed swap works on chain and only for its own values; an early refund is refused by the contract.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Contract, Interface, Signature, Wallet, sha256, type ContractTransactionResponse } from 'ethers';
import { artifact } from '@ferry/devnet/evm/contracts.js';
import { DEFAULT_BTC_PAIR, type PairConfig } from '../../src/swaps/pairs.ts';
import type { CreateEvmSubmarineResponse, SwapStatusBody } from '@ferry/sdk/protocol/index.js';
import { rest } from '../lightning/helpers.ts';
import { startWorld, type World } from './world.ts';

const RBTC_PAIR: PairConfig = {
  ...DEFAULT_BTC_PAIR,
  id: 'RBTC/BTC',
  base: 'RBTC',
  limits: { ...DEFAULT_BTC_PAIR.limits, maximalZeroConf: 0 },
  timeouts: { reverse: 2880, swapMinimal: 2880, swapMaximal: 5760 },
};
const WEI_PER_UNIT = 10n ** 10n;
const etherSwapAbi = new Interface(artifact('etherSwap').abi);

describe('submarine swaps RBTC → Lightning', () => {
  let world: World;
  let user: Wallet;
  let etherSwap: Contract;

  before(async () => {
    world = await startWorld({ pairs: [DEFAULT_BTC_PAIR, RBTC_PAIR], evm: { claimBatchMs: 1500 } });
    user = world.evm!.user;
    etherSwap = new Contract(world.evm!.chain.contractAddress, etherSwapAbi, user);
  });
  after(async () => {
    await world?.close();
  });

  async function aliceInvoice(sat: number): Promise<{ invoice: string; hash: string }> {
    const { body } = await rest<{ payment_request: string; r_hash: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', { value: sat, memo: 'evm test' });
    return { invoice: body.payment_request, hash: Buffer.from(body.r_hash, 'base64').toString('hex') };
  }

  const aliceInvoiceState = async (hash: string) =>
    (await rest<{ state: string }>(world.devnet.info.lightning.alice, 'GET', `/v1/invoice/${hash}`)).body.state;

  async function statusOf(id: string, wanted: string[], timeoutMs = 20_000): Promise<SwapStatusBody> {
    const deadline = Date.now() + timeoutMs;
    let last: SwapStatusBody | undefined;
    while (Date.now() < deadline) {
      await world.evm!.chain.sync().catch(() => {});
      last = await world.engine.status(id);
      if (last !== undefined && wanted.includes(last.status)) return last;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`swap ${id} did not reach ${wanted.join(' or ')}; it is ${JSON.stringify(last)} (seen: ${world.published.get(id)?.join(' → ')})`);
  }

  async function create(sat: number) {
    const { invoice, hash } = await aliceInvoice(sat);
    const created = (await world.engine.createSubmarine({ from: 'RBTC', to: 'BTC', invoice })) as CreateEvmSubmarineResponse;
    return { created, hash };
  }

  /** The user's lock, as boltz-core's EtherSwap takes it; the values default to the swap's. */
  async function lock(created: CreateEvmSubmarineResponse, hash: string, change: { wei?: bigint; claimAddress?: string; timelock?: number; hash?: string } = {}) {
    const values = {
      preimageHash: `0x${change.hash ?? hash}`,
      amount: change.wei ?? BigInt(created.expectedAmount!) * WEI_PER_UNIT,
      claimAddress: change.claimAddress ?? created.claimAddress,
      refundAddress: user.address,
      timelock: change.timelock ?? created.timeoutBlockHeight,
    };
    const sent = await etherSwap.getFunction('lock(bytes32,address,uint256)')(values.preimageHash, values.claimAddress, values.timelock, { value: values.amount });
    await sent.wait();
    return values;
  }

  const locked = async (values: Awaited<ReturnType<typeof lock>>): Promise<boolean> =>
    etherSwap.getFunction('swaps')(await etherSwap.getFunction('hashValues')(values.preimageHash, values.amount, values.claimAddress, values.refundAddress, values.timelock));

  test('the answer, the lock, the payment and the claim: funds move from the contract to Ferry, alice is paid', async () => {
    const pairs = await world.engine.submarinePairs();
    const pair = pairs.RBTC.BTC;
    assert.ok(pair.fees.minerFees > 0, 'the claim gas is priced');
    const { invoice, hash } = await aliceInvoice(40_000);
    const created = (await world.engine.createSubmarine({ from: 'RBTC', to: 'BTC', invoice, pairHash: pair.hash })) as CreateEvmSubmarineResponse & Record<string, unknown>;
    assert.equal(created.address, world.evm!.chain.contractAddress);
    assert.equal(created.claimAddress, world.evm!.backend.signer.address);
    assert.equal(created.timeoutBlockHeight, (await world.evm!.backend.height()) + 2880);
    assert.equal(created.expectedAmount, 40_000 + 40 + pair.fees.minerFees);
    assert.equal(created.acceptZeroConf, false);
    assert.equal(created.swapTree, undefined);
    assert.equal(created.bip21, undefined);

    const ferryBefore = await world.evm!.backend.balance();
    const contractBefore = await world.evm!.backend.balance(created.address);
    const values = await lock(created, hash);
    assert.equal(await locked(values), true);
    const claimed = await statusOf(created.id, ['transaction.claimed']);
    assert.equal(claimed.status, 'transaction.claimed');
    assert.deepEqual(world.published.get(created.id), [
      'invoice.set',
      'transaction.confirmed',
      'invoice.pending',
      'invoice.paid',
      'transaction.claim.pending',
      'transaction.claimed',
    ]);
    assert.equal(await aliceInvoiceState(hash), 'SETTLED');
    assert.equal(await locked(values), false, 'claimed out of the contract');
    assert.equal(await world.evm!.backend.balance(created.address), contractBefore);
    const swap = await world.storage.swaps.get(created.id);
    const claimTx = (swap!.data.claimTransaction as { txid: string }).txid;
    const receipt = (await world.devnet.evm.provider.getTransactionReceipt(claimTx))!;
    assert.equal(receipt.from, world.evm!.backend.signer.address);
    assert.equal(await world.evm!.backend.balance(), ferryBefore + values.amount - receipt.gasUsed * receipt.gasPrice, 'Ferry got the lockup, less its gas');
  });

  test("a quote of the last minute stays good after a block moved the gas price: priced with the quote's fees", async () => {
    const quoted = (await world.engine.submarinePairs()).RBTC.BTC;
    // A block at another base fee: eth_gasPrice, the claim's price and with them the pair's hash move.
    const gasPrice = BigInt(await world.devnet.evm.provider.send('eth_gasPrice', []));
    await world.devnet.evm.provider.send('anvil_setNextBlockBaseFeePerGas', [`0x${(gasPrice * 3n).toString(16)}`]);
    await world.devnet.evm.provider.send('anvil_mine', ['0x1']);
    let now = quoted;
    while (now.hash === quoted.hash) {
      await new Promise((resolve) => setTimeout(resolve, 100)); // the fee read is kept for a second
      now = (await world.engine.submarinePairs()).RBTC.BTC;
    }
    assert.ok(now.fees.minerFees > quoted.fees.minerFees, `the claim costs more now (${now.fees.minerFees} > ${quoted.fees.minerFees})`);
    const late = (await world.engine.createSubmarine({ from: 'RBTC', to: 'BTC', invoice: (await aliceInvoice(40_000)).invoice, pairHash: quoted.hash })) as CreateEvmSubmarineResponse;
    assert.equal(late.expectedAmount, 40_000 + 40 + quoted.fees.minerFees, 'the fees the client checked and agreed to');
    const current = (await world.engine.createSubmarine({ from: 'RBTC', to: 'BTC', invoice: (await aliceInvoice(40_000)).invoice, pairHash: now.hash })) as CreateEvmSubmarineResponse;
    assert.equal(current.expectedAmount, 40_000 + 40 + now.fees.minerFees);
    const forged = { ...quoted, hash: 'ab'.repeat(32) };
    await assert.rejects(world.engine.createSubmarine({ from: 'RBTC', to: 'BTC', invoice: (await aliceInvoice(40_000)).invoice, pairHash: forged.hash }), /invalid pair hash/);
  });

  test('claims due together go out as one claimBatch transaction', async () => {
    const swaps = await Promise.all([30_000, 31_000, 32_000].map((sat) => create(sat)));
    const values = [];
    for (const { created, hash } of swaps) values.push(await lock(created, hash));
    for (const { created } of swaps) await statusOf(created.id, ['transaction.claimed']);
    const txids = await Promise.all(swaps.map(async ({ created }) => ((await world.storage.swaps.get(created.id))!.data.claimTransaction as { txid: string }).txid));
    assert.equal(new Set(txids).size, 1, `one transaction claimed all three: ${txids.join(', ')}`);
    const tx = (await world.devnet.evm.provider.getTransaction(txids[0]))!;
    const call = etherSwapAbi.parseTransaction({ data: tx.data })!;
    assert.equal(call.signature, 'claimBatch(bytes32[],uint256[],address[],uint256[])');
    assert.equal((call.args[0] as string[]).length, 3);
    for (const entry of values) assert.equal(await locked(entry), false);
    for (const { hash } of swaps) assert.equal(await aliceInvoiceState(hash), 'SETTLED');
  });

  test('a lockup of the wrong amount fails the swap unpaid; its EIP-712 signature refunds it, and only it', async () => {
    const { created, hash } = await create(25_000);
    await assert.rejects(world.engine.submarineRefundSignature(created.id), /status not eligible/, 'no signature before the swap failed');
    const values = await lock(created, hash, { wei: (BigInt(created.expectedAmount!) - 1n) * WEI_PER_UNIT });
    const failed = await statusOf(created.id, ['transaction.lockupFailed']);
    assert.deepEqual(failed.failureDetails, { expected: created.expectedAmount, actual: created.expectedAmount! - 1 });
    assert.equal(await aliceInvoiceState(hash), 'OPEN', 'not paid');

    const { signature } = await world.engine.submarineRefundSignature(created.id);
    const { v, r, s } = Signature.from(signature);
    const refundCooperative = etherSwap.getFunction('refundCooperative(bytes32,uint256,address,uint256,uint8,bytes32,bytes32)');
    // The signature is for these values only: another amount or timelock is a forgery to the contract.
    await assert.rejects(refundCooperative.staticCall(values.preimageHash, values.amount - 1n, values.claimAddress, values.timelock, v, r, s), /InvalidSignature|revert/);
    await assert.rejects(refundCooperative.staticCall(values.preimageHash, values.amount, values.claimAddress, values.timelock + 1, v, r, s), /InvalidSignature|revert/);
    // Without a signature the refund must wait for the timelock.
    await assert.rejects(etherSwap.getFunction('refund(bytes32,uint256,address,uint256)').staticCall(values.preimageHash, values.amount, values.claimAddress, values.timelock), /SwapNotTimedOut|revert/);
    const before = await world.evm!.backend.balance(user.address);
    const sent = (await refundCooperative(values.preimageHash, values.amount, values.claimAddress, values.timelock, v, r, s)) as ContractTransactionResponse;
    const receipt = await sent.wait();
    assert.equal(await locked(values), false);
    assert.equal(await world.evm!.backend.balance(user.address), before + values.amount - receipt!.gasUsed * receipt!.gasPrice, 'the user has the lockup back');
    // Refunded: the invoice is never paid.
    assert.equal((await world.engine.status(created.id))!.status, 'transaction.lockupFailed');
    assert.equal(await aliceInvoiceState(hash), 'OPEN');
  });

  test('a lockup naming another claim address or timelock fails the swap unpaid; one of another preimage hash is not the swap\'s', async () => {
    const other = Wallet.createRandom().address;
    const byAddress = await create(26_000);
    const addressValues = await lock(byAddress.created, byAddress.hash, { claimAddress: other });
    const failed = await statusOf(byAddress.created.id, ['transaction.lockupFailed']);
    assert.match(failed.failureReason ?? '', /invalid claim address/);
    await assert.rejects(world.engine.submarineRefundSignature(byAddress.created.id), /does not name Ferry as claim address/);
    assert.equal(await locked(addressValues), true, 'still the user\'s to refund after the timelock');

    const byTimelock = await create(27_000);
    await lock(byTimelock.created, byTimelock.hash, { timelock: byTimelock.created.timeoutBlockHeight + 100 });
    assert.match((await statusOf(byTimelock.created.id, ['transaction.lockupFailed'])).failureReason ?? '', /invalid timelock/);

    const byHash = await create(28_000);
    const wrongHash = sha256(randomBytes(32)).slice(2);
    const hashValues = await lock(byHash.created, byHash.hash, { hash: wrongHash });
    await world.evm!.chain.sync();
    await world.engine.whenIdle(byHash.created.id);
    assert.equal((await world.engine.status(byHash.created.id))!.status, 'invoice.set', 'not the swap\'s lockup');
    assert.equal(await locked(hashValues), true);
    for (const { hash } of [byAddress, byTimelock, byHash]) assert.equal(await aliceInvoiceState(hash), 'OPEN', 'not paid');
  });
});
