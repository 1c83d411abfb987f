// Confirmations by amount on the contract chain (RBTC on the devnet's anvil): with the RBTC/BTC pair set to
// mainnet's RBTC table (imported, not retyped), a user's `lock` delivered one block deep is not paid for; Ferry pays
// alice's invoice only once the Lockup event is as deep as its amount needs, counted at the chain's blocks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Contract, Interface, type Wallet } from 'ethers';
import { artifact } from '@ferry/devnet/evm/contracts.js';
import type { CreateEvmSubmarineResponse } from '@ferry/sdk/protocol/index.js';
import { DEFAULT_CONFIRMATIONS, parseConfirmations, requiredConfirmations } from '../../src/swaps/confirmations.ts';
import { DEFAULT_BTC_PAIR, type PairConfig } from '../../src/swaps/pairs.ts';
import { rest } from '../lightning/helpers.ts';
import { startWorld, type World } from './world.ts';

const MAINNET_RBTC = parseConfirmations(DEFAULT_CONFIRMATIONS.mainnet.RBTC);
const RBTC_PAIR: PairConfig = {
  ...DEFAULT_BTC_PAIR,
  id: 'RBTC/BTC',
  base: 'RBTC',
  limits: { ...DEFAULT_BTC_PAIR.limits, maximalZeroConf: 0 },
  timeouts: { reverse: 2880, swapMinimal: 2880, swapMaximal: 5760 },
  confirmations: MAINNET_RBTC,
};
const WEI_PER_UNIT = 10n ** 10n;

let world: World;
let user: Wallet;
let etherSwap: Contract;

before(async () => {
  world = await startWorld({ pairs: [DEFAULT_BTC_PAIR, RBTC_PAIR], evm: {} });
  user = world.evm!.user;
  etherSwap = new Contract(world.evm!.chain.contractAddress, new Interface(artifact('etherSwap').abi), user);
});

after(async () => {
  await world?.close();
});

const aliceInvoiceState = async (hash: string) => (await rest<{ state: string }>(world.devnet.info.lightning.alice, 'GET', `/v1/invoice/${hash}`)).body.state;

test('an RBTC lockup is paid for only once it is as deep as its amount needs', async () => {
  const { body } = await rest<{ payment_request: string; r_hash: string }>(world.devnet.info.lightning.alice, 'POST', '/v1/invoices', { value: 40_000, memo: 'depth' });
  const hash = Buffer.from(body.r_hash, 'base64').toString('hex');
  const created = (await world.engine.createSubmarine({ from: 'RBTC', to: 'BTC', invoice: body.payment_request })) as CreateEvmSubmarineResponse;
  const needed = requiredConfirmations(MAINNET_RBTC, created.expectedAmount!);
  assert.ok(needed >= 3, 'mainnet wants at least 3 RSK blocks');

  const sent = await etherSwap.getFunction('lock(bytes32,address,uint256)')(`0x${hash}`, created.claimAddress, created.timeoutBlockHeight, {
    value: BigInt(created.expectedAmount!) * WEI_PER_UNIT,
  });
  await sent.wait();
  // Delivered (the follower's evm.confirmations is 1) and recorded, one block deep: not paid for.
  for (let depth = 1; depth < needed; depth++) {
    if (depth > 1) await world.devnet.evm.provider.send('evm_mine', []);
    await world.evm!.chain.sync();
    const swap = (await world.storage.swaps.get(created.id))!;
    assert.equal(swap.status, 'transaction.mempool', `not acted on ${depth} blocks deep`);
    assert.equal((swap.data.lockup as { confirmed: boolean }).confirmed, false);
    assert.equal(await aliceInvoiceState(hash), 'OPEN', "alice's invoice is not paid");
  }
  await world.devnet.evm.provider.send('evm_mine', []);
  await world.evm!.chain.sync();
  const deadline = Date.now() + 30_000;
  while ((await aliceInvoiceState(hash)) !== 'SETTLED') {
    if (Date.now() > deadline) throw new Error(`alice is not paid; the swap is ${(await world.storage.swaps.get(created.id))!.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(world.published.get(created.id)?.slice(0, 3), ['invoice.set', 'transaction.mempool', 'transaction.confirmed'], 'confirmed only at its depth');
});
