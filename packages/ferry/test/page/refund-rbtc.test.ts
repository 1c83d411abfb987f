// The refund view's RBTC part, used as a person would, in headless Chromium (Debian's, driven by playwright-core)
// against a devnet Ferry, with an EIP-1193 wallet injected as an extension would (its requests answered by anvil for
// one of its unlocked accounts). An RBTC submarine swap of an invoice Ferry cannot pay is created and locked through
// the wallet in one browser, which is then closed (its own refund cut), so no page refunds it; Ferry fails to pay.
// A fresh browser profile (nothing of the swap in its storage) opens the refund view, the wallet finds the account's
// lockup (the contract's logs, Ferry's restore by address), and the wallet refunds it: with Ferry's EIP-712 signature
// (refundCooperative), or, with Ferry's signature cut, after the page said how many blocks remain, by `refund` once
// the timelock block is reached; with the restore proof refused, from the contract's logs alone; and in the browser
// that made the swap, whose history then lists it as refunded. Effects are checked on anvil in Node: the transaction
// the page names is the wallet account's call of that function, the account got the locked value back less its gas,
// the contract's entry is gone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Contract, JsonRpcProvider, getAddress, toQuantity } from 'ethers';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Service } from '../client/support.ts';
import { startRbtcWorld, stopRbtcWorld, type RbtcWorld } from './rbtc-world.ts';
import { walletRefundSent } from './wallet-refund.ts';
import { chromiumPath } from '../browser/page.ts';
import { DESKTOP, PHONE, injectEvmWallet, openSwapPage, shot, unpayableInvoice, type Opened, type Viewport } from './support.ts';

const found = chromiumPath();
const skip = 'skip' in found ? `no Chromium: ${found.skip}` : false;

/** An RBTC submarine swap locked through the page and left: the lock's values as the page showed them. */
interface Locked {
  id: string;
  /** The wallet's lock transaction. */
  lockHash: string;
  preimageHash: string;
  value: bigint;
  claimAddress: string;
  timelock: number;
}

describe('RBTC swaps refunded from the refund view, through an injected Ethereum wallet, in Chromium', { skip, timeout: 900_000 }, () => {
  let service: Service;
  let browser: Browser;
  let provider: JsonRpcProvider;
  /** The wallet's account: an anvil dev account, unlocked, that no devnet role uses. */
  let account: string;
  const asked: string[] = [];

  let world: RbtcWorld | undefined;
  before(async () => {
    world = await startRbtcWorld((found as { path: string }).path);
    ({ service, browser, provider, account } = world);
  });
  after(() => stopRbtcWorld(world));

  /** A profile's wallet; `refused`: the methods its user refuses. */
  const walletOf = (refused: string[]) => (context: BrowserContext) => injectEvmWallet(context, { rpcUrl: service.info.evm.rpcUrl, account, asked, refused });
  const open = (viewport: Viewport, refused: string[] = []): Promise<Opened> => openSwapPage(browser, service.ferry.pageUrl!, viewport, walletOf(refused));
  const etherSwap = () => new Contract(getAddress(service.info.evm.contracts.etherSwap), ['function swaps(bytes32) view returns (bool)', 'function hashValues(bytes32,uint256,address,address,uint256) pure returns (bytes32)'], provider);
  /** Whether the contract still holds the lock: its entry (the hash of its values) is set. */
  const stillLocked = async (locked: Locked): Promise<boolean> => {
    const key = (await etherSwap().getFunction('hashValues')(`0x${locked.preimageHash}`, locked.value, locked.claimAddress, account, locked.timelock)) as string;
    return (await etherSwap().getFunction('swaps')(key)) as boolean;
  };

  /** In the page: an RBTC submarine swap of an invoice Ferry cannot pay, locked through the wallet (the page's own refund cut). */
  async function createAndLock(page: Page): Promise<Locked> {
    await page.route('**/v2/swap/submarine/*/refund', (route) => route.abort('connectionrefused'));
    const { invoice, paymentHash, sat } = await unpayableInvoice(service);
    await page.getByLabel('Chain → Lightning').check();
    await page.getByLabel('Chain', { exact: true }).selectOption('RBTC');
    await page.locator('#amount').fill(String(sat));
    await page.locator('#amount-error:empty').waitFor();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Lightning invoice (BOLT11)').fill(invoice);
    await page.locator('#invoice-input-form').getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('I have saved my rescue key').check();
    await page.getByRole('button', { name: 'Create swap' }).click();
    await page.getByRole('heading', { name: 'Lock the coins with your wallet' }).waitFor();
    const call = (await page.locator('#contract-call').textContent())!;
    const id = (await page.locator('#swap-id').textContent())!.trim();
    await page.getByRole('button', { name: 'Lock with your wallet' }).click();
    await page.locator('#contract-lock-result', { hasText: 'Locked in transaction' }).waitFor();
    const locked: Locked = {
      id,
      lockHash: /transaction (0x[0-9a-f]{64})/.exec((await page.locator('#contract-lock-result').textContent())!)![1],
      preimageHash: paymentHash,
      value: BigInt(/value (\d+) wei/.exec(call)![1]),
      claimAddress: /claimAddress (0x[0-9a-fA-F]{40})/.exec(call)![1],
      timelock: Number(/timelock (\d+)/.exec(call)![1]),
    };
    assert.equal(await stillLocked(locked), true, 'the wallet locked the swap’s values');
    return locked;
  }

  /** Returns once Ferry has given up paying the swap's invoice. */
  async function failed(locked: Locked): Promise<void> {
    for (;;) {
      const { status } = (await (await fetch(`${service.apiUrl}/v2/swap/${locked.id}`)).json()) as { status: string };
      if (status === 'invoice.failedToPay') return;
      assert.ok(!/claimed|lockupFailed|expired/.test(status), `the swap ended otherwise: ${status}`);
      await new Promise((done) => setTimeout(done, 200)); // the next look, not a ceiling
    }
  }

  /** In a browser of its own, closed right after the lock: no page refunds the swap by itself. Returns once it failed. */
  async function lockAndLeave(): Promise<Locked> {
    const opened = await open(DESKTOP);
    let locked: Locked;
    try {
      locked = await createAndLock(opened.page);
    } finally {
      await opened.close();
    }
    await failed(locked);
    return locked;
  }

  /** The refund view, its RBTC lockups found through the wallet: the one line listed (named by Ferry's swap, unless `nameless`). */
  async function findWithWallet(page: Page, locked: Locked, nameless = false): Promise<void> {
    await page.getByRole('button', { name: 'Refund a swap' }).first().click();
    await page.getByRole('button', { name: 'Find my RBTC swaps with my wallet' }).click();
    const listed = page.locator('#refund-swaps label');
    await listed.first().waitFor();
    assert.equal(await listed.count(), 1, 'the one lockup of the account still in the contract');
    const amount = (Number(locked.value) / 1e18).toFixed(8);
    const line = nameless
      ? `Lockup ${locked.lockHash} · RBTC (Rootstock, with your Ethereum wallet) · ${amount} RBTC locked · Ferry names no swap of it`
      : `Swap ${locked.id} · RBTC (Rootstock, with your Ethereum wallet) · ${amount} RBTC locked · Ferry could not pay the invoice`;
    assert.equal((await listed.textContent())!.trim(), line);
    assert.match((await page.locator('#refund-account').textContent())!, new RegExp(`your wallet's account ${account}`, 'i'));
    assert.equal(await page.locator('#refund-to').isHidden(), true, 'no address to type: the refund goes to the account');
  }

  /** The refund the page names: the account's call of `method` to the contract, the value back less its gas. */
  async function checkRefund(page: Page, locked: Locked, method: 'refundCooperative' | 'refund', balanceBefore: bigint): Promise<string> {
    const { said, txHash, gas } = await walletRefundSent(world!, page, locked, method, balanceBefore);
    assert.equal(await stillLocked(locked), false, 'the contract’s swap entry is gone');
    assert.equal(said, `Refunded ${(Number(locked.value) / 1e18).toFixed(8)} RBTC to your wallet's account ${account} (gas ${(Number(gas) / 1e18).toFixed(8)} RBTC), sent by your wallet ${method === 'refund' ? 'alone, after the timelock (Ferry was not needed)' : "with Ferry's signature, before the timelock"}.`);
    assert.match((await page.locator('#refund-swaps label').textContent())!, new RegExp(`refunded in transaction ${txHash}$`));
    return txHash;
  }

  test('a failed RBTC submarine swap refunded from the refund view in a fresh browser, through the wallet, with Ferry’s signature', async () => {
    const locked = await lockAndLeave();
    const { page, problems, close } = await open(DESKTOP);
    try {
      assert.equal(await page.locator('#history-list li').count(), 0, 'this browser has no record of the swap');
      asked.length = 0;
      await findWithWallet(page, locked);
      assert.ok(asked.includes('eth_requestAccounts') && asked.includes('personal_sign'), `the wallet was asked for its account and the restore proof: ${asked.join(', ')}`);
      await shot(page, 'rbtc-5-refund-found');
      const before = await provider.getBalance(account);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await checkRefund(page, locked, 'refundCooperative', before);
      assert.equal(await page.getByRole('button', { name: 'Refund', exact: true }).isDisabled(), true, 'nothing left to refund');
      await shot(page, 'rbtc-6-refunded');
      assert.deepEqual(problems, [], 'the page ran without errors');
    } finally {
      await close();
    }
  });

  test('with Ferry not signing, the page says how many blocks remain; after the timelock the wallet refunds alone', async () => {
    const locked = await lockAndLeave();
    const { page, problems, close } = await open(PHONE);
    try {
      await page.route('**/v2/swap/submarine/*/refund', (route) => route.abort('connectionrefused'));
      await findWithWallet(page, locked);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await page.locator('#refund-result.bad').waitFor();
      const said = (await page.locator('#refund-result').textContent())!;
      const blocks = locked.timelock - 1 - (await provider.getBlockNumber());
      assert.ok(blocks > 1, `the timelock is ahead: ${blocks} blocks`);
      assert.match(said, new RegExp(`^Ferry did not sign a refund now .*once block ${locked.timelock - 1} is mined: ${blocks} more blocks from now \\(about `));
      assert.equal(await stillLocked(locked), true, 'nothing refunded');
      await shot(page, 'rbtc-7-refund-too-early');

      // The block before the timelock mined: the same button has the wallet call `refund`, without Ferry.
      await provider.send('anvil_mine', [toQuantity(blocks)]);
      const before = await provider.getBalance(account);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await checkRefund(page, locked, 'refund', before);
      await shot(page, 'rbtc-8-refunded-after-timelock');
      assert.ok(problems.every((problem) => /ERR_CONNECTION_REFUSED|Failed to load resource/.test(problem)), problems.join('\n'));
    } finally {
      await close();
    }
  });

  test('the restore proof refused in the wallet: the lockup is listed from the contract alone and refunded with Ferry’s signature, asked by its preimage hash', async () => {
    const locked = await lockAndLeave();
    const { page, problems, close } = await open(DESKTOP, ['personal_sign']);
    try {
      asked.length = 0;
      await findWithWallet(page, locked, true);
      assert.ok(asked.includes('personal_sign'), 'the wallet was asked for the restore proof, and refused');
      assert.match((await page.locator('#refund-result').textContent())!, /Ferry named none of their swaps \(.*User rejected the request.*\): each is refunded all the same\.$/);
      const signatures: string[] = [];
      page.on('request', (request) => void (/\/v2\/swap\/submarine\/[^/]+\/refund$/.test(request.url()) && signatures.push(new URL(request.url()).pathname)));
      const before = await provider.getBalance(account);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await checkRefund(page, locked, 'refundCooperative', before);
      assert.deepEqual(signatures, [`/v2/swap/submarine/${locked.preimageHash}/refund`], 'Ferry’s signature asked by the preimage hash');
      assert.deepEqual(problems, [], 'the page ran without errors');
    } finally {
      await close();
    }
  });

  test('in the browser that made the swap, its own refund cut: the swap is left open in the history, the refund view refunds it, the history says so', async () => {
    const opened = await open(DESKTOP);
    const { page, problems, close } = opened;
    try {
      const locked = await createAndLock(page);
      await failed(locked);
      // The page's follower could not refund (Ferry's signature cut, the timelock ahead): the swap stays open.
      await page.locator('#view-done:not([hidden])').waitFor();
      const entry = page.locator('#history-list li', { hasText: locked.id });
      await entry.filter({ hasText: '(open)' }).waitFor();
      assert.match((await entry.textContent())!, /RBTC → Lightning · [\d,]+ sat · invoice\.failedToPay \(open\)/);

      await page.unroute('**/v2/swap/submarine/*/refund');
      await findWithWallet(page, locked);
      const before = await provider.getBalance(account);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await checkRefund(page, locked, 'refundCooperative', before);
      assert.match((await entry.textContent())!, /RBTC → Lightning · [\d,]+ sat · invoice\.failedToPay, refunded · /);
      // Reloaded, the page has nothing of it to resume or follow.
      await page.reload();
      await page.locator('body[data-ready="true"]').waitFor();
      assert.match((await entry.textContent())!, /invoice\.failedToPay, refunded · /);
      assert.equal(await entry.getByRole('button').count(), 0, 'nothing left to resume');
      assert.ok(problems.every((problem) => /ERR_CONNECTION_REFUSED|Failed to load resource/.test(problem)), problems.join('\n'));
    } finally {
      await close();
    }
  });
});
