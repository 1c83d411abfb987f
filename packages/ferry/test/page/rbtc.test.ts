// RBTC swaps on the page Ferry serves, through a browser Ethereum wallet, used as a person would: headless Chromium
// (Debian's, driven by playwright-core) gets an EIP-1193 provider as window.ethereum before the page loads, the way a
// wallet extension injects one — each request({ method, params }) is forwarded to the devnet's anvil, where one of
// anvil's unlocked dev accounts is the wallet's account, so anvil signs what the wallet would (eth_sendTransaction).
// By clicking and typing: a reverse swap, paid by alice from the invoice the page shows and claimed by the page through
// the wallet (the account's balance rises by the locked amount less the claim's gas); a submarine swap of alice's
// invoice, resumed after a reload and locked through the wallet from the contract call the page shows (alice is paid,
// Ferry takes the lock out of the contract); and a browser with no wallet, told so before any swap exists.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Contract, JsonRpcProvider, getAddress, parseUnits } from 'ethers';
import type { Browser, BrowserContext } from 'playwright-core';
import type { Service } from '../client/support.ts';
import { startRbtcWorld, stopRbtcWorld, type RbtcWorld } from './rbtc-world.ts';
import { chromiumPath } from '../browser/page.ts';
import { DESKTOP, PHONE, injectEvmWallet, openSwapPage, shot, steps, type Opened, type Viewport } from './support.ts';

const found = chromiumPath();
const skip = 'skip' in found ? `no Chromium: ${found.skip}` : false;
/** Wei in an API unit (10^-8 RBTC). */
const WEI_PER_UNIT = 10n ** 10n;

describe('RBTC swaps on the swap page, through an injected Ethereum wallet, in Chromium', { skip, timeout: 900_000 }, () => {
  let service: Service;
  let browser: Browser;
  let provider: JsonRpcProvider;
  /** The wallet's account: an anvil dev account, unlocked, that no devnet role uses. */
  let account: string;
  /** The methods the page asked the wallet for, in order. */
  const asked: string[] = [];

  let world: RbtcWorld | undefined;
  before(async () => {
    world = await startRbtcWorld((found as { path: string }).path);
    ({ service, browser, provider, account } = world);
  });
  after(() => stopRbtcWorld(world));

  /** Puts the wallet into every page of the profile: window.ethereum, whose requests anvil answers for the account. */
  const injectWallet = (context: BrowserContext) => injectEvmWallet(context, { rpcUrl: service.info.evm.rpcUrl, account, asked });

  const open = (viewport: Viewport, wallet = true): Promise<Opened> => openSwapPage(browser, service.ferry.pageUrl!, viewport, wallet ? injectWallet : undefined);
  /** The page's own files among what the browser received: their count and kB over the wire (gzip). */
  const pageFiles = (received: Opened['received']) => {
    const files = received.filter(({ url }) => new URL(url).pathname === '/' || new URL(url).pathname.startsWith('/page/'));
    return { files: files.length, kB: (files.reduce((total, { bytes }) => total + bytes, 0) / 1024).toFixed(1), wallet: files.some(({ url }) => /\/evm-wallet-[^/]*\.js$/.test(url)) };
  };
  const etherSwap = () => getAddress(service.info.evm.contracts.etherSwap);

  /** The direction and RBTC, the amount typed, then Continue. */
  async function choose(opened: Opened, direction: 'Lightning → chain' | 'Chain → Lightning', sat: number): Promise<void> {
    const { page } = opened;
    await page.getByLabel(direction).check();
    const offered = await page.getByLabel('Chain', { exact: true }).locator('option').allTextContents();
    assert.ok(offered.some((text) => text.startsWith('RBTC')), `RBTC is offered: ${offered.join(', ')}`);
    await page.getByLabel('Chain', { exact: true }).selectOption('RBTC');
    const amount = page.locator('#amount');
    await amount.fill('');
    await amount.pressSequentially(String(sat));
    await page.locator('#amount-error:empty').waitFor();
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  async function saveRescueAndCreate(opened: Opened): Promise<void> {
    const { page } = opened;
    await page.getByRole('heading', { name: 'Save your rescue key first' }).waitFor();
    await page.getByLabel('I have saved my rescue key').check();
    await page.getByRole('button', { name: 'Create swap' }).click();
  }

  test('no wallet in the browser: said at once, and no swap is created', async () => {
    const opened = await open(DESKTOP, false);
    try {
      await choose(opened, 'Lightning → chain', 50_000);
      await opened.page.locator('#error:not([hidden])').waitFor();
      assert.match((await opened.page.locator('#error').textContent())!, /no Ethereum wallet found in this browser/);
      assert.equal(await opened.page.locator('#view-choose').isVisible(), true, 'the choice stays on screen');
      assert.equal(await opened.page.evaluate(() => Object.keys(localStorage).filter((key) => key.includes('contract')).length), 0, 'nothing stored');
      await shot(opened.page, 'rbtc-0-no-wallet');
      assert.deepEqual(opened.problems, []);
    } finally {
      await opened.close();
    }
  });

  test('reverse swap into the wallet’s account: alice pays the invoice shown, the wallet claims, the balance rises by the lock less gas', async () => {
    const opened = await open(DESKTOP);
    const { page } = opened;
    try {
      asked.length = 0;
      const initial = pageFiles(opened.received);
      assert.equal(initial.wallet, false, 'the wallet code is not part of the initial load');
      await choose(opened, 'Lightning → chain', 50_000);
      await saveRescueAndCreate(opened);
      assert.ok(asked.includes('eth_requestAccounts'), `the page asked the wallet for its account: ${asked.join(', ')}`);

      await page.getByRole('heading', { name: 'Pay this invoice' }).waitFor();
      const invoice = (await page.locator('#invoice-text').textContent())!.trim();
      assert.match(invoice, /^lnbcrt500u1/);
      assert.match((await page.locator('#pay-invoice-destination').textContent())!, new RegExp(account));
      await shot(page, 'rbtc-1-reverse-invoice');
      const before = await provider.getBalance(account);
      const aliceBefore = await service.channelBalance('alice');
      const payment = service.lightning('alice').payInvoice({ paymentRequest: invoice, feeLimitMsat: 1_000_000n, timeoutSeconds: 120 });

      await page.locator('#view-done:not([hidden])').waitFor();
      const title = (await page.locator('#done-title').textContent())!;
      const txHash = (await page.locator('#done-txid').textContent())!.trim();
      assert.match(title, /^Received \d+\.\d{8} RBTC$/, `the page ended with: ${title} ${await page.locator('#done-text').textContent()}\n  ${await steps(page)}`);
      assert.equal((await payment).status, 'SUCCEEDED');
      assert.equal(aliceBefore - (await service.channelBalance('alice')), 50_000);
      await shot(page, 'rbtc-2-reverse-done');

      // Effects: the claim the page names was sent by the wallet's account to the contract, and paid it the lock less gas.
      const receipt = (await provider.getTransactionReceipt(txHash))!;
      assert.equal(receipt.status, 1);
      assert.equal(getAddress(receipt.from), account, 'sent from the wallet’s account');
      assert.equal(getAddress(receipt.to!), etherSwap());
      assert.ok(asked.includes('eth_sendTransaction'), 'the wallet sent the claim');
      const received = parseUnits(title.replace(/^Received | RBTC$/g, ''), 18);
      assert.equal(received % WEI_PER_UNIT, 0n);
      assert.ok(received > 40_000n * WEI_PER_UNIT && received < 50_000n * WEI_PER_UNIT, `about the invoice's amount: ${received} wei`);
      const gas = receipt.gasUsed * receipt.gasPrice;
      assert.equal(await provider.getBalance(account), before + received - gas, 'the lock, less the claim’s gas');
      assert.match((await page.locator('#history-list').textContent())!, /Lightning → RBTC · 50,000 sat · invoice\.settled/);
      const whole = pageFiles(opened.received);
      assert.equal(whole.wallet, true, 'the wallet code was fetched once RBTC was chosen');
      console.log(`# page budget: RBTC reverse swap, initial load: ${initial.files} page files, ${initial.kB} kB transferred (gzip); whole swap: ${whole.files} files, ${whole.kB} kB`);
      assert.deepEqual(opened.problems, [], 'the page ran without errors');
    } finally {
      await opened.close();
    }
  });

  test('submarine swap from the wallet’s account at phone width: the lock shown and sent by the wallet, alice is paid, Ferry claims the lock', async () => {
    const opened = await open(PHONE);
    const { page } = opened;
    try {
      asked.length = 0;
      const { invoice, paymentHash } = await service.invoice('alice', 40_000);
      await choose(opened, 'Chain → Lightning', 40_000);
      await page.getByRole('heading', { name: /Which invoice should be paid/ }).waitFor();
      assert.equal(await page.locator('#refund-address').isVisible(), false, 'no refund address to type: it is the wallet’s account');
      await page.getByLabel('Lightning invoice (BOLT11)').fill(invoice);
      await page.locator('#invoice-input-form').getByRole('button', { name: 'Continue' }).click();
      await saveRescueAndCreate(opened);

      // What the wallet will be asked to send: the contract call, its values and the amount.
      await page.getByRole('heading', { name: 'Lock the coins with your wallet' }).waitFor();
      assert.equal(getAddress((await page.locator('#contract-address').textContent())!.trim()), etherSwap());
      assert.equal(getAddress((await page.locator('#contract-from').textContent())!.trim()), account);
      const call = (await page.locator('#contract-call').textContent())!;
      assert.match(call, new RegExp(`^lock\\(preimageHash 0x${paymentHash}, claimAddress 0x[0-9a-fA-F]{40}, timelock \\d+\\) with value \\d+ wei$`));
      const value = BigInt(/value (\d+) wei/.exec(call)![1]);
      assert.ok(value > 40_000n * WEI_PER_UNIT, `more than the invoice: ${value} wei`);
      await shot(page, 'rbtc-3-submarine-lock');
      // The tab reloads before the lock: the swap is in the history, and Resume (the wallet asked again) shows the same lock.
      const id = (await page.locator('#swap-id').textContent())!.trim();
      await page.reload();
      await page.locator('body[data-ready="true"]').waitFor();
      await page.getByRole('button', { name: `Resume swap ${id}` }).click();
      await page.getByRole('heading', { name: 'Lock the coins with your wallet' }).waitFor();
      assert.equal((await page.locator('#contract-call').textContent())!, call, 'the same lock after the reload');
      assert.match(await steps(page), /Resumed from this browser's storage/);
      const before = await provider.getBalance(account);
      const contractBefore = await provider.getBalance(etherSwap());

      await page.getByRole('button', { name: 'Lock with your wallet' }).click();
      await page.locator('#contract-lock-result', { hasText: 'Locked in transaction' }).waitFor();
      const lockHash = /transaction (0x[0-9a-f]{64})/.exec((await page.locator('#contract-lock-result').textContent())!)![1];
      const lock = (await provider.getTransactionReceipt(lockHash))!;
      assert.equal(getAddress(lock.from), account);
      assert.equal(await provider.getBalance(account), before - value - lock.gasUsed * lock.gasPrice, 'the value and the lock’s gas, from the wallet’s account');

      await page.locator('#view-done:not([hidden])').waitFor();
      const title = (await page.locator('#done-title').textContent())!;
      assert.equal(title, 'Invoice paid', `the page ended with: ${title} ${await page.locator('#done-text').textContent()}\n  ${await steps(page)}`);
      await shot(page, 'rbtc-4-submarine-done');
      assert.equal((await service.lightning('alice').lookupInvoice(paymentHash))?.state, 'SETTLED', 'alice is paid');

      // Ferry takes the lock out of the contract (in a batch: within moments of the payment).
      const swaps = new Contract(etherSwap(), ['function swaps(bytes32) view returns (bool)', 'function hashValues(bytes32,uint256,address,address,uint256) pure returns (bytes32)'], provider);
      const claimAddress = /claimAddress (0x[0-9a-fA-F]{40})/.exec(call)![1];
      const timelock = BigInt(/timelock (\d+)/.exec(call)![1]);
      const key = (await swaps.getFunction('hashValues')(`0x${paymentHash}`, value, claimAddress, account, timelock)) as string;
      const deadline = Date.now() + 60_000;
      while ((await swaps.getFunction('swaps')(key)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
      assert.equal(await swaps.getFunction('swaps')(key), false, 'claimed out of the contract');
      assert.equal(await provider.getBalance(etherSwap()), contractBefore, 'the lock left the contract');
      assert.match((await page.locator('#history-list').textContent())!, /RBTC → Lightning · 40,000 sat/);
      assert.deepEqual(opened.problems, [], 'the page ran without errors');
    } finally {
      await opened.close();
    }
  });
});
