// Commitment swaps RBTC → Lightning on the devnet's anvil, the wallet side only through the HTTP API and ethers:
// the user locks in boltz-core's EtherSwap with preimage hash bytes32(0) at the details' claim address and
// timelock, creates a submarine swap, and commits the lockup to it with an EIP-712 Commit signature. Asserted on
// effects: alice's invoice is paid (her channel balance), Ferry's claim through the signature moves the locked
// amount from the contract to Ferry; a forged signature, one of other values, a lockup of the wrong amount and a
// second use of a lockup are refused with a 4xx {"error"}, leave the swap unpaid and the lockup the user's to refund
// (after its timelock; a lockup no swap took at once, with Ferry's signature from POST /v2/commitment/RBTC/refund).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Contract, Interface, Signature, Wallet, ZeroHash, type ContractTransactionResponse, type HDNodeWallet } from 'ethers';
import { artifact } from '@ferry/devnet/evm/contracts.js';
import { DEFAULT_BTC_PAIR, type PairConfig } from '../../src/swaps/pairs.ts';
import type { CommitmentLockupDetailsBody, CreateEvmSubmarineResponse } from '@ferry/sdk/protocol/index.js';
import { rest } from '../lightning/helpers.ts';
import { call, startApi, type TestApi } from '../api/swap-api-harness.ts';
import { startWorld, type World } from './world.ts';

const RBTC_PAIR: PairConfig = {
  ...DEFAULT_BTC_PAIR,
  id: 'RBTC/BTC',
  base: 'RBTC',
  limits: { ...DEFAULT_BTC_PAIR.limits, maximalZeroConf: 0 },
  timeouts: { reverse: 2880, swapMinimal: 2880, swapMaximal: 5760 },
};
const WEI_PER_UNIT = 10n ** 10n;
const COMMITMENT_MINUTES = 1_600;
const etherSwapAbi = new Interface(artifact('etherSwap').abi);
const COMMIT_TYPES = {
  Commit: [
    { name: 'preimageHash', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
    { name: 'claimAddress', type: 'address' },
    { name: 'refundAddress', type: 'address' },
    { name: 'timelock', type: 'uint256' },
  ],
};

interface Locked {
  txHash: string;
  amount: bigint;
  claimAddress: string;
  refundAddress: string;
  timelock: number;
}

describe('commitment swaps RBTC → Lightning', () => {
  let world: World;
  let api: TestApi;
  let user: Wallet;
  let etherSwap: Contract;

  before(async () => {
    // A commitment timelock just past the swaps' (2880 blocks): the last test mines up to it.
    world = await startWorld({ pairs: [DEFAULT_BTC_PAIR, RBTC_PAIR], evm: { claimBatchMs: 300 }, commitmentTimelockMinutes: COMMITMENT_MINUTES });
    api = await startApi(world.engine);
    user = world.evm!.user;
    etherSwap = new Contract(world.evm!.chain.contractAddress, etherSwapAbi, user);
  });
  after(async () => {
    await api?.close();
    await world?.close();
  });

  async function aliceInvoice(sat: number): Promise<{ invoice: string; hash: string }> {
    const { body } = await rest<{ payment_request: string; r_hash: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', { value: sat, memo: 'commitment test' });
    return { invoice: body.payment_request, hash: Buffer.from(body.r_hash, 'base64').toString('hex') };
  }
  const aliceInvoiceState = async (hash: string) =>
    (await rest<{ state: string }>(world.devnet.info.lightning.alice, 'GET', `/v1/invoice/${hash}`)).body.state;
  const aliceLocalMsat = async () =>
    BigInt((await rest<{ local_balance: { msat: string } }>(world.devnet.info.lightning.alice, 'GET', '/v1/balance/channels')).body.local_balance.msat);

  async function details(): Promise<CommitmentLockupDetailsBody> {
    const answer = await call(api, 'GET', '/v2/commitment/RBTC/details');
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    return answer.json as CommitmentLockupDetailsBody;
  }

  /** The user's commitment lockup: `lock` with preimage hash bytes32(0), the amount chosen before any swap. */
  async function lockCommitment(amount: bigint): Promise<Locked> {
    const { contract, claimAddress, timelock } = await details();
    assert.equal(contract, world.evm!.chain.contractAddress);
    const sent = (await etherSwap.getFunction('lock(bytes32,address,uint256)')(ZeroHash, claimAddress, timelock, { value: amount })) as ContractTransactionResponse;
    const receipt = (await sent.wait())!;
    return { txHash: receipt.hash, amount, claimAddress, refundAddress: user.address, timelock };
  }

  async function createSwap(sat: number) {
    const { invoice, hash } = await aliceInvoice(sat);
    const answer = await call(api, 'POST', '/v2/swap/submarine', { from: 'RBTC', to: 'BTC', invoice });
    assert.equal(answer.status, 201, JSON.stringify(answer.json));
    return { created: answer.json as CreateEvmSubmarineResponse, hash };
  }

  /** The EIP-712 Commit signature, by `signer` (the refund address unless forged), of the swap's hash and values. */
  async function sign(locked: Locked, preimageHash: string, change: { signer?: Wallet | HDNodeWallet; amount?: bigint } = {}): Promise<string> {
    const { chainId } = await world.devnet.evm.provider.getNetwork();
    const domain = { name: 'EtherSwap', version: String(await etherSwap.getFunction('version')()), chainId, verifyingContract: world.evm!.chain.contractAddress };
    const message = { preimageHash: `0x${preimageHash}`, amount: change.amount ?? locked.amount, claimAddress: locked.claimAddress, refundAddress: locked.refundAddress, timelock: locked.timelock };
    return (change.signer ?? user).signTypedData(domain, COMMIT_TYPES, message);
  }

  const commit = (swapId: string, locked: Locked, signature: string) =>
    call(api, 'POST', '/v2/commitment/RBTC', { swapId, signature, transactionHash: locked.txHash });

  /** What the refund address signs (EIP-191) to ask for the cooperative refund of an unlinked commitment. */
  const refundMessage = (locked: Locked) =>
    ['Boltz commitment refund authorization', 'chain: RBTC', `transactionHash: ${locked.txHash}`, 'logIndex: none'].join('\n');
  const askRefund = (locked: Locked, refundAddressSignature: string) =>
    call(api, 'POST', '/v2/commitment/RBTC/refund', { transactionHash: locked.txHash, refundAddressSignature });

  const stillLocked = async (locked: Locked): Promise<boolean> =>
    etherSwap.getFunction('swaps')(await etherSwap.getFunction('hashValues')(ZeroHash, locked.amount, locked.claimAddress, locked.refundAddress, locked.timelock));

  async function statusOf(id: string, wanted: string): Promise<string> {
    const deadline = Date.now() + 30_000;
    let last: string | undefined;
    while (Date.now() < deadline) {
      await world.evm!.chain.sync().catch(() => {});
      last = (await call(api, 'GET', `/v2/swap/${id}`)).json.status as string;
      if (last === wanted) return last;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`swap ${id} did not reach ${wanted}; it is ${last} (seen: ${world.published.get(id)?.join(' → ')})`);
  }

  const refused: { locked: Locked; hash: string; id: string }[] = [];

  test('details name the contract, Ferry as claim address and a timelock the configured minutes ahead', async () => {
    const ahead = Math.ceil((COMMITMENT_MINUTES * 60) / world.evm!.chain.blockSeconds);
    const before = await world.evm!.backend.height();
    const answer = await details();
    const after = await world.evm!.backend.height();
    assert.equal(answer.claimAddress, world.evm!.backend.signer.address);
    assert.ok(answer.timelock >= before + ahead && answer.timelock <= after + ahead, `timelock ${answer.timelock} is ${ahead} blocks past ${before}..${after}`);
    const { created } = await createSwap(20_000);
    assert.ok(answer.timelock > created.timeoutBlockHeight, `timelock ${answer.timelock} is past the swap's timeout ${created.timeoutBlockHeight}`);
    const btc = await call(api, 'GET', '/v2/commitment/BTC/details');
    assert.deepEqual(btc, { status: 400, json: { error: 'currency does not support commitment swaps' } });
  });

  test('lock with a zero preimage hash, create the swap, commit: alice is paid and Ferry claims the lockup through the signature', async () => {
    const { created, hash } = await createSwap(40_000);
    const locked = await lockCommitment(BigInt(created.expectedAmount!) * WEI_PER_UNIT);
    assert.equal(await stillLocked(locked), true);
    await world.evm!.chain.sync();
    await world.engine.whenIdle(created.id);
    assert.equal((await call(api, 'GET', `/v2/swap/${created.id}`)).json.status, 'invoice.set', 'a lockup of the zero hash is no swap\'s by itself');

    const aliceBefore = await aliceLocalMsat();
    const ferryBefore = await world.evm!.backend.balance();
    const contractBefore = await world.evm!.backend.balance(created.address);
    const answer = await commit(created.id, locked, await sign(locked, hash));
    assert.deepEqual(answer, { status: 201, json: {} });
    await statusOf(created.id, 'transaction.claimed');

    assert.equal(await aliceInvoiceState(hash), 'SETTLED');
    assert.equal(await aliceLocalMsat(), aliceBefore + 40_000_000n, 'alice\'s channel balance grew by the invoice');
    assert.equal(await stillLocked(locked), false, 'claimed out of the contract');
    assert.equal(await world.evm!.backend.balance(created.address), contractBefore - locked.amount);
    const claimTx = ((await world.storage.swaps.get(created.id))!.data.claimTransaction as { txid: string }).txid;
    const tx = (await world.devnet.evm.provider.getTransaction(claimTx))!;
    assert.equal(etherSwapAbi.parseTransaction({ data: tx.data })!.signature, 'claim(bytes32,uint256,address,address,uint256,uint8,bytes32,bytes32)');
    const receipt = (await world.devnet.evm.provider.getTransactionReceipt(claimTx))!;
    assert.equal(receipt.from, world.evm!.backend.signer.address);
    assert.equal(await world.evm!.backend.balance(), ferryBefore + locked.amount - receipt.gasUsed * receipt.gasPrice, 'Ferry got the lockup, less its gas');

    // The lockup is spent, and a lockup commits to one swap only.
    const second = await createSwap(40_000);
    const again = await commit(second.created.id, locked, await sign(locked, second.hash));
    assert.equal(again.status, 400);
    assert.match(again.json.error, /commitment exists already/);
    assert.equal(await aliceInvoiceState(second.hash), 'OPEN');
    const refund = await askRefund(locked, await user.signMessage(refundMessage(locked)));
    assert.equal(refund.status, 400);
    assert.match(refund.json.error, new RegExp(`linked to swap ${created.id}`));
  });

  test('a commitment no swap took is refunded at once with Ferry\'s EIP-712 signature, and then commits to no swap', async () => {
    const locked = await lockCommitment(50_000n * WEI_PER_UNIT);
    const stranger = await askRefund(locked, await Wallet.createRandom().signMessage(refundMessage(locked)));
    assert.deepEqual(stranger, { status: 400, json: { error: 'swap not eligible for a cooperative refund: refund address signature mismatch' } });
    const answer = await askRefund(locked, await user.signMessage(refundMessage(locked)));
    assert.equal(answer.status, 201, JSON.stringify(answer.json));
    const { v, r, s } = Signature.from(answer.json.signature as string);
    const refundCooperative = etherSwap.getFunction('refundCooperative(bytes32,uint256,address,uint256,uint8,bytes32,bytes32)');
    // Ferry's signature is for these values only.
    await assert.rejects(refundCooperative.staticCall(ZeroHash, locked.amount - 1n, locked.claimAddress, locked.timelock, v, r, s), /InvalidSignature|revert/);
    const before = await world.evm!.backend.balance(user.address);
    const sent = (await refundCooperative(ZeroHash, locked.amount, locked.claimAddress, locked.timelock, v, r, s)) as ContractTransactionResponse;
    const receipt = (await sent.wait())!;
    assert.equal(await stillLocked(locked), false);
    assert.equal(await world.evm!.backend.balance(user.address), before + locked.amount - receipt.gasUsed * receipt.gasPrice, 'the user has the lockup back before its timelock');
    const { created, hash } = await createSwap(45_000);
    const late = await commit(created.id, locked, await sign(locked, hash));
    assert.equal(late.status, 400);
    assert.match(late.json.error, /commitment exists already/);
    assert.equal(await aliceInvoiceState(hash), 'OPEN');
  });

  test('a forged signature, one of other values and a lockup of the wrong amount are refused: nothing paid, the lockup stays the user\'s', async () => {
    const { created, hash } = await createSwap(30_000);
    const expected = BigInt(created.expectedAmount!) * WEI_PER_UNIT;
    const locked = await lockCommitment(expected);

    const forged = await commit(created.id, locked, await sign(locked, hash, { signer: Wallet.createRandom() }));
    assert.deepEqual(forged, { status: 400, json: { error: 'invalid signature' } });
    const otherAmount = await commit(created.id, locked, await sign(locked, hash, { amount: expected - WEI_PER_UNIT }));
    assert.deepEqual(otherAmount, { status: 400, json: { error: 'invalid signature' } });
    const otherSwap = await commit(created.id, locked, await sign(locked, '11'.repeat(32)));
    assert.deepEqual(otherSwap, { status: 400, json: { error: 'invalid signature' } });
    const garbage = await commit(created.id, locked, '0x1234');
    assert.equal(garbage.status, 400);
    assert.match(garbage.json.error, /^invalid signature: /);
    const badHash = await call(api, 'POST', '/v2/commitment/RBTC', { swapId: created.id, signature: '0x00', transactionHash: '0x1234' });
    assert.deepEqual(badHash, { status: 400, json: { error: 'invalid parameter: transactionHash' } });

    const short = await createSwap(31_000);
    const underpaid = await lockCommitment((BigInt(short.created.expectedAmount!) - 1n) * WEI_PER_UNIT);
    const tooLittle = await commit(short.created.id, underpaid, await sign(underpaid, short.hash));
    assert.deepEqual(tooLittle, { status: 400, json: { error: `insufficient amount: ${short.created.expectedAmount! - 1} < ${short.created.expectedAmount}` } });

    for (const { id, hash: invoiceHash } of [{ id: created.id, hash }, { id: short.created.id, hash: short.hash }]) {
      await world.engine.whenIdle(id);
      assert.equal((await call(api, 'GET', `/v2/swap/${id}`)).json.status, 'invoice.set', 'no lockup recorded');
      assert.equal(await aliceInvoiceState(invoiceHash), 'OPEN', 'not paid');
    }
    assert.equal(await stillLocked(locked), true);
    assert.equal(await stillLocked(underpaid), true);
    refused.push({ locked, hash, id: created.id }, { locked: underpaid, hash: short.hash, id: short.created.id });
    assert.deepEqual(api.errors, []);
  });

  test('a refused commitment lockup is refunded by the user after its timelock', async () => {
    assert.equal(refused.length, 2, 'the refusals ran');
    const refund = etherSwap.getFunction('refund(bytes32,uint256,address,uint256)');
    const { locked } = refused[0];
    await assert.rejects(refund.staticCall(ZeroHash, locked.amount, locked.claimAddress, locked.timelock), /SwapNotTimedOut|revert/);
    const height = await world.evm!.backend.height();
    const latest = Math.max(...refused.map((entry) => entry.locked.timelock));
    await world.devnet.evm.provider.send('anvil_mine', [`0x${(latest - height).toString(16)}`]);
    for (const { locked: lockup } of refused) {
      const before = await world.evm!.backend.balance(user.address);
      const sent = (await refund(ZeroHash, lockup.amount, lockup.claimAddress, lockup.timelock)) as ContractTransactionResponse;
      const receipt = (await sent.wait())!;
      assert.equal(await stillLocked(lockup), false);
      assert.equal(await world.evm!.backend.balance(user.address), before + lockup.amount - receipt.gasUsed * receipt.gasPrice, 'the user has the lockup back');
    }
    for (const { hash } of refused) assert.equal(await aliceInvoiceState(hash), 'OPEN');
  });
});
