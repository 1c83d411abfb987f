// Chain swaps BTC → L-BTC end to end against a real Ferry, driven by a Boltz-compatible chain swap wallet
// (chain-swap-wallet.ts) on boltz-core 4.x and on 2.x: the wallet checks both sides of the answer, locks BTC from the
// devnet's Bitcoin user wallet, and claims Ferry's blinded L-BTC — cooperatively, signing Ferry's key-path claim of
// its BTC in the same request, or alone through the claim leaf, leaving Ferry to read the preimage off the Liquid
// chain. Asserted on both chains: which transaction spent which lockup, through which path, and wallet balances.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { ChainSwapWallet, type ChainSwap, type SideClaim, type SideLockup } from '../../helpers/chain-swap-wallet.ts';
import { boltzCore2 } from '../../helpers/liquid-boltz-core-2.ts';
import { boltzCore4 } from '../../helpers/liquid-boltz-core-4.ts';
import { newKeyPair } from '../../helpers/swap-api.ts';
import { assertKeyPath, assertOnlySpend, assertScriptPathClaim, assertStatusOrder, withFerryLog } from './support/assertions.ts';
import { startWorld, type World } from './support/world.ts';

/** Ferry's wait for the wallet's signature of its claim before it claims alone: short, for the silent wallet. */
const CLAIM_DELAY_MS = 3_000;
const USER_LOCK_SAT = 150_000;

let world: World;
const wallets = {} as Record<'4.x' | '2.x', ChainSwapWallet>;

before(async () => {
  world = await startWorld({ claimDelayMs: CLAIM_DELAY_MS });
  wallets['4.x'] = new ChainSwapWallet(world.wallet, await world.liquidWallet(boltzCore4));
  wallets['2.x'] = new ChainSwapWallet(world.wallet, await world.liquidWallet(boltzCore2));
});

after(async () => {
  await world?.close();
});

/**
 * Creates and funds a swap and waits for Ferry's L-BTC lockup, confirmed: the devnet wallet's lockup signals RBF,
 * so Ferry locks only once it is in a block.
 */
async function lockedSwap(wallet: ChainSwapWallet) {
  const { chain, liquid } = world;
  const swap = await wallet.create('BTC', 'L-BTC', USER_LOCK_SAT);
  const [bitcoinFrom, liquidFrom] = [(await chain.height()) + 1, (await liquid.height()) + 1];
  const [userBefore, operatorBefore] = [await chain.balance(chain.user), await chain.balance(chain.operator)];
  const lockup = await wallet.fund(swap);
  assert.equal(lockup.value, BigInt(USER_LOCK_SAT));
  assert.equal(await chain.balance(chain.user), userBefore - lockup.value - (await chain.fee(lockup.txid)), 'the user wallet paid the lockup and its fee');
  await wallet.status.waitFor(swap.id, 'transaction.mempool');
  await chain.mine(1);
  const sent = await wallet.status.waitFor(swap.id, 'transaction.server.mempool');
  assert.ok(sent.transaction?.hex, "the update carries Ferry's lockup");
  const serverLockup = wallet.serviceLockup(swap, sent.transaction.hex);
  assert.equal(sent.transaction.id, serverLockup.txid);
  await liquid.mine(1);
  await wallet.status.waitFor(swap.id, 'transaction.server.confirmed');
  return { swap, lockup, serverLockup, bitcoinFrom, liquidFrom, operatorBefore };
}

type Claim = (swap: ChainSwap, lockup: SideLockup) => Promise<SideClaim>;

/** Runs a swap to Ferry's lockup, lets `claim` take it, and checks the L-BTC reached the user and Ferry took the BTC. */
async function chainSwap(wallet: ChainSwapWallet, claim: Claim) {
  const { chain, liquid } = world;
  const { swap, lockup, serverLockup, bitcoinFrom, liquidFrom, operatorBefore } = await lockedSwap(wallet);
  const liquidUserBefore = await liquid.balance(liquid.user);
  const claimTx = await claim(swap, serverLockup);
  await liquid.mine(1);
  const liquidSpend = assertOnlySpend(await liquid.spendsOf(serverLockup.txid, serverLockup.vout, liquidFrom), claimTx.txid);
  assert.equal(await liquid.fee(claimTx.txid), claimTx.fee);
  assert.equal(claimTx.value, BigInt(swap.claim.amount) - claimTx.fee, 'the user receives what Ferry locked less the claim fee');
  assert.equal(await liquid.balance(liquid.user), liquidUserBefore + claimTx.value, "Ferry's L-BTC moved to the user wallet");

  await wallet.status.waitFor(swap.id, 'transaction.claimed', CLAIM_DELAY_MS + 20_000);
  await chain.mine(1);
  const bitcoinSpend = assertOnlySpend(await chain.spendsOf(lockup.txid, lockup.vout, bitcoinFrom));
  const ferryFee = await chain.fee(bitcoinSpend.txid);
  assert.equal(await chain.balance(chain.operator), operatorBefore + lockup.value - ferryFee, "Ferry's claim of the user's BTC pays its wallet");
  assertStatusOrder(wallet.status.statuses(swap.id), [
    'swap.created',
    'transaction.mempool',
    'transaction.confirmed',
    'transaction.server.mempool',
    'transaction.server.confirmed',
    'transaction.claimed',
  ]);
  return { swap, liquidSpend, bitcoinSpend };
}

describe('chain swaps BTC → L-BTC', { timeout: 600_000 }, () => {
  test('the wallet checks both sides before it locks: a wrong key, address, blinding key, timeout or amount is refused', async () => {
    const pair = await wallets['4.x'].pair('BTC', 'L-BTC');
    const { body, secrets } = await wallets['4.x'].request('BTC', 'L-BTC', USER_LOCK_SAT, pair);
    for (const wallet of Object.values(wallets)) {
      assert.equal((await wallet.check('BTC', 'L-BTC', body, secrets, USER_LOCK_SAT, pair)).lockup.address, body.lockupDetails.lockupAddress);
    }
    const check = (side: 'lockupDetails' | 'claimDetails', tampered: object) =>
      wallets['2.x'].check('BTC', 'L-BTC', { ...body, [side]: { ...body[side], ...tampered } }, secrets, USER_LOCK_SAT, pair);
    const stranger = hex.encode(newKeyPair().publicKey);
    await assert.rejects(check('lockupDetails', { serverPublicKey: stranger }), /swap tree differs/);
    await assert.rejects(check('lockupDetails', { timeoutBlockHeight: body.lockupDetails.timeoutBlockHeight - 1 }), /swap tree differs/);
    await assert.rejects(check('lockupDetails', { lockupAddress: await world.chain.user.getNewAddress() }), /does not commit/);
    await assert.rejects(check('lockupDetails', { amount: USER_LOCK_SAT - 1 }), /asks for/);
    await assert.rejects(check('claimDetails', { serverPublicKey: stranger }), /swap tree differs/);
    await assert.rejects(check('claimDetails', { timeoutBlockHeight: body.claimDetails.timeoutBlockHeight + 1 }), /swap tree differs/);
    await assert.rejects(check('claimDetails', { blindingKey: hex.encode(newKeyPair().privateKey) }), /blinded to the blinding key/);
    await assert.rejects(check('claimDetails', { amount: body.claimDetails.amount + 1 }), /service would lock/);
    const own = { ...secrets, claimKey: newKeyPair() };
    await assert.rejects(wallets['4.x'].check('BTC', 'L-BTC', body, own, USER_LOCK_SAT, pair), /swap tree differs/, 'the tree must hold the wallet\'s own claim key');
  });

  for (const version of ['4.x', '2.x'] as const) {
    const wallet = () => wallets[version];

    test(`cooperative claim (boltz-core ${version}): the wallet signs Ferry's BTC claim and claims the L-BTC by key path`, async () => {
      await withFerryLog(world, async () => {
        const { liquidSpend, bitcoinSpend } = await chainSwap(wallet(), (swap, lockup) => wallet().cooperativeClaim(swap, lockup));
        assertKeyPath(liquidSpend);
        assertKeyPath(bitcoinSpend);
      });
    });

    test(`script-path claim (boltz-core ${version}): Ferry reads the preimage off the Liquid chain and claims the BTC alone`, async () => {
      await withFerryLog(world, async () => {
        const { swap, liquidSpend, bitcoinSpend } = await chainSwap(wallet(), async (swap, lockup) => {
          const claim = await wallet().liquidSide.scriptPathClaim(swap.claim, lockup, swap.preimage);
          assert.deepEqual(await wallet().liquid.broadcast(claim.hex), { status: 201, body: { id: claim.txid } });
          return claim;
        });
        const preimage = hex.encode(swap.preimage);
        assertScriptPathClaim(liquidSpend, preimage, hex.encode(swap.claim.tree.claimLeaf.output));
        assertScriptPathClaim(bitcoinSpend, preimage, hex.encode(swap.lockup.tree.claimLeaf.output));
      });
    });
  }
});

describe('chain swaps L-BTC → BTC', { timeout: 600_000 }, () => {
  for (const version of ['4.x', '2.x'] as const) {
    test(`cooperative claim (boltz-core ${version}): the wallet locks blinded L-BTC, claims Ferry's BTC by key path, Ferry claims the L-BTC`, async () => {
      const { chain, liquid } = world;
      const wallet = wallets[version];
      await withFerryLog(world, async () => {
        const swap = await wallet.create('L-BTC', 'BTC', USER_LOCK_SAT);
        const [bitcoinFrom, liquidFrom] = [(await chain.height()) + 1, (await liquid.height()) + 1];
        const [liquidUserBefore, operatorBefore] = [await liquid.balance(liquid.user), await liquid.balance(liquid.operator)];
        const lockup = await wallet.fund(swap);
        assert.equal(lockup.value, BigInt(USER_LOCK_SAT), 'the lockup unblinds to the amount asked');
        const fundingFee = await liquid.fee(lockup.txid);
        assert.equal(await liquid.balance(liquid.user), liquidUserBefore - lockup.value - fundingFee, 'the user wallet paid the lockup and its fee');
        await wallet.status.waitFor(swap.id, 'transaction.mempool');
        await liquid.mine(1);
        const sent = await wallet.status.waitFor(swap.id, 'transaction.server.mempool');
        const serverLockup = wallet.serviceLockup(swap, sent.transaction!.hex!);
        await chain.mine(1);
        await wallet.status.waitFor(swap.id, 'transaction.server.confirmed');

        const bitcoinUserBefore = await chain.balance(chain.user);
        const claim = await wallet.cooperativeClaim(swap, serverLockup);
        await chain.mine(1);
        assertKeyPath(assertOnlySpend(await chain.spendsOf(serverLockup.txid, serverLockup.vout, bitcoinFrom), claim.txid));
        assert.equal(claim.value, BigInt(swap.claim.amount) - claim.fee);
        assert.equal(await chain.balance(chain.user), bitcoinUserBefore + claim.value, "Ferry's BTC moved to the user wallet");

        await wallet.status.waitFor(swap.id, 'transaction.claimed');
        await liquid.mine(1);
        const ferryClaim = assertOnlySpend(await liquid.spendsOf(lockup.txid, lockup.vout, liquidFrom));
        assertKeyPath(ferryClaim);
        assert.equal(await liquid.balance(liquid.operator), operatorBefore + lockup.value - (await liquid.fee(ferryClaim.txid)), "Ferry's claim pays its wallet");
        assertStatusOrder(wallet.status.statuses(swap.id), ['swap.created', 'transaction.server.mempool', 'transaction.server.confirmed', 'transaction.claimed']);
      });
    });
  }
});
