// Gasless reverse swaps Lightning → RBTC on the devnet's anvil, through the engine: the client's claim address
// holds no RBTC at all; it pays the swap's hold invoice and the gas invoice (either first), Ferry locks only once
// both are held, and its lock (lockPrepayMinerfee) pays the gas to the claim address, which then claims with it.
// With only one of the two paid, nothing is locked and both are cancelled at the invoices' expiry.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Contract, Interface, Wallet, sha256, type ContractTransactionResponse } from 'ethers';
import { artifact } from '@ferry/devnet/evm/contracts.js';
import { DEFAULT_BTC_PAIR, type PairConfig } from '../../src/swaps/pairs.ts';
import type { CreateEvmReverseResponse } from '@ferry/sdk/protocol/index.js';
import { startWorld, type World } from './world.ts';

const RBTC_PAIR: PairConfig = {
  ...DEFAULT_BTC_PAIR,
  id: 'RBTC/BTC',
  base: 'RBTC',
  limits: { ...DEFAULT_BTC_PAIR.limits, maximalZeroConf: 0 },
  timeouts: { reverse: 200, swapMinimal: 2880, swapMaximal: 5760 },
};
const WEI_PER_UNIT = 10n ** 10n;
// Short, so the tests of a single payment see the invoices expire.
const INVOICE_EXPIRY_SECONDS = 8;
const etherSwapAbi = new Interface(artifact('etherSwap').abi);

describe('gasless reverse swaps Lightning → RBTC', () => {
  let world: World;

  before(async () => {
    world = await startWorld({ pairs: [DEFAULT_BTC_PAIR, RBTC_PAIR], evm: {}, invoiceExpirySeconds: INVOICE_EXPIRY_SECONDS });
  });
  after(async () => {
    await world?.close();
  });

  const sync = async () => {
    await world.evm!.chain.sync().catch(() => {});
    await world.engine.pollInvoices();
  };

  async function statusOf(id: string, wanted: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      await sync();
      if ((await world.engine.status(id))?.status === wanted) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`swap ${id} did not reach ${wanted} (seen: ${world.published.get(id)?.join(' → ')})`);
  }

  /** A swap for a fresh claim address that holds nothing. */
  async function create(flag: 'gasless' | 'prepayMinerFee') {
    const claimer = Wallet.createRandom(world.devnet.evm.provider);
    const preimage = randomBytes(32);
    const preimageHash = sha256(preimage).slice(2);
    const created = (await world.engine.createReverse({ from: 'BTC', to: 'RBTC', preimageHash, claimAddress: claimer.address, invoiceAmount: 50_000, [flag]: true })) as CreateEvmReverseResponse;
    const values = {
      preimageHash: `0x${preimageHash}`,
      amount: BigInt(created.onchainAmount) * WEI_PER_UNIT,
      claimAddress: claimer.address,
      refundAddress: created.refundAddress,
      timelock: created.timeoutBlockHeight,
    };
    return { claimer, preimage, created, values };
  }

  const etherSwap = () => new Contract(world.evm!.chain.contractAddress, etherSwapAbi, world.devnet.evm.provider);
  const locked = async (values: { preimageHash: string; amount: bigint; claimAddress: string; refundAddress: string; timelock: number }) =>
    etherSwap().getFunction('swaps')(await etherSwap().getFunction('hashValues')(values.preimageHash, values.amount, values.claimAddress, values.refundAddress, values.timelock));
  const pay = (invoice: string) => world.alice.payInvoice({ paymentRequest: invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 });
  const balance = (address: string) => world.evm!.backend.balance(address);

  test('gasless: the invoice held alone locks nothing; once the gas invoice is held too, the lock pays the gas and the claim address claims with it', async () => {
    const { claimer, preimage, created, values } = await create('gasless');
    assert.ok(created.gasAssetAmount! > 0 && created.gaslessInvoice, 'gasAssetAmount and gaslessInvoice answered');
    const gasInvoice = await world.ferryNode.decodeInvoice(created.gaslessInvoice!);
    assert.equal(gasInvoice.amountMsat, BigInt(Math.ceil(created.gasAssetAmount! / RBTC_PAIR.rate)) * 1000n);
    const ferryBefore = await world.evm!.backend.balance();

    const payment = pay(created.invoice);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await sync();
    assert.equal((await world.engine.status(created.id))?.status, 'swap.created', 'nothing happens on the invoice alone');
    assert.equal(await locked(values), false);

    const gasPayment = pay(created.gaslessInvoice!);
    await statusOf(created.id, 'transaction.confirmed');
    assert.deepEqual(world.published.get(created.id), ['swap.created', 'minerfee.paid', 'transaction.confirmed']);
    assert.equal(await locked(values), true, 'the onchain amount is locked');
    const gas = BigInt(created.gasAssetAmount!) * WEI_PER_UNIT;
    assert.equal(await balance(claimer.address), gas, 'the gas went to the claim address');
    assert.equal((await gasPayment).status, 'SUCCEEDED', 'the gas invoice is settled');
    const lockTx = (await world.storage.swaps.get(created.id))!.data.lockup as { txid: string };
    const lockReceipt = (await world.devnet.evm.provider.getTransactionReceipt(lockTx.txid))!;
    assert.equal(await world.evm!.backend.balance(), ferryBefore - values.amount - gas - lockReceipt.gasUsed * lockReceipt.gasPrice, 'one transaction paid both');

    const claim = etherSwap().connect(claimer).getFunction('claim(bytes32,uint256,address,uint256)');
    const receipt = (await ((await claim(`0x${preimage.toString('hex')}`, values.amount, values.refundAddress, values.timelock)) as ContractTransactionResponse).wait())!;
    await statusOf(created.id, 'invoice.settled');
    assert.equal((await payment).status, 'SUCCEEDED');
    assert.equal(await balance(claimer.address), gas + values.amount - receipt.gasUsed * receipt.gasPrice, 'claimed with the prepaid gas');
  });

  test('prepayMinerFee (the earlier names): the gas invoice held first, then the invoice', async () => {
    const { claimer, created, values } = await create('prepayMinerFee');
    const answer = created as unknown as { prepayMinerFeeAmount: number; minerFeeInvoice: string; gasAssetAmount?: number };
    assert.ok(answer.prepayMinerFeeAmount > 0 && answer.minerFeeInvoice && answer.gasAssetAmount === undefined);
    const gasPayment = pay(answer.minerFeeInvoice);
    await statusOf(created.id, 'minerfee.paid');
    assert.equal(await locked(values), false, 'nothing locked on the gas alone');
    // Held until the world closes: nobody claims this one.
    pay(created.invoice).catch(() => {});
    await statusOf(created.id, 'transaction.confirmed');
    assert.equal(await locked(values), true);
    assert.equal(await balance(claimer.address), BigInt(answer.prepayMinerFeeAmount) * WEI_PER_UNIT);
    assert.equal((await gasPayment).status, 'SUCCEEDED');
  });

  for (const paid of ['invoice', 'gas'] as const) {
    test(`only the ${paid === 'gas' ? 'gas invoice' : 'invoice'} paid: nothing is locked, and at expiry both invoices are cancelled and the payment returns`, async () => {
      const { claimer, created, values } = await create('gasless');
      const payment = pay(paid === 'gas' ? created.gaslessInvoice! : created.invoice);
      await statusOf(created.id, 'invoice.expired', (INVOICE_EXPIRY_SECONDS + 10) * 1000);
      assert.equal((await payment).status, 'FAILED', 'the held payment was given back');
      assert.equal(await locked(values), false);
      assert.equal(await balance(claimer.address), 0n, 'no gas sent');
      for (const invoice of [created.invoice, created.gaslessInvoice!]) {
        const { paymentHash } = await world.ferryNode.decodeInvoice(invoice);
        assert.equal((await world.ferryNode.lookupInvoice(paymentHash))?.state, 'CANCELED', 'both invoices cancelled');
      }
    });
  }
});
