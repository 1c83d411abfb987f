// Chain → chain swaps on the page Ferry serves, used as a person would: headless Chromium (Debian's, driven by
// playwright-core) opens the page of a devnet Ferry, and by clicking and typing chooses BTC → L-BTC (desktop width)
// or L-BTC → BTC (phone width, the page reloaded once the lockup address is shown), gives the two addresses and
// saves the rescue key; the devnet's user wallet sends what the page shows to the lockup address it shows, and the
// page claims Ferry's lockup on the other chain by itself. The effects are checked on both chains: the page's claim
// confirmed and pays the destination the amount Ferry locked less the claim's fee, and Ferry's claim spent the
// user's lockup. Screenshots of each view go to a temporary directory, or to docs/page/ with FERRY_PAGE_SCREENSHOTS=1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { swapChain } from '@ferry/sdk/client/index.js';
import { startService, type Service } from '../client/support.ts';
import { chromiumPath } from '../browser/page.ts';
import { DESKTOP, PHONE, launchChromium, openSwapPage, shot, steps, type Viewport } from './support.ts';

const found = chromiumPath();
const skip = 'skip' in found ? `no Chromium: ${found.skip}` : false;

type Currency = 'BTC' | 'L-BTC';
const satOf = (text: string): number => Number(text.replace(/\D/g, ''));

// A hang guard, not a timing: nothing below waits on a clock; a swap's steps take seconds each on a busy machine.
describe('chain swaps on the swap page Ferry serves, in Chromium, against a devnet Ferry', { skip, timeout: 900_000 }, () => {
  let service: Service;
  let browser: Browser;

  before(async () => {
    service = await startService();
    assert.ok(service.ferry.pageUrl, 'ferry start serves the page by default');
    await service.ferry.page!.built;
    browser = await launchChromium((found as { path: string }).path);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  async function chainSwap(from: Currency, to: Currency, viewport: Viewport, prefix: string, options: { reload?: boolean } = {}) {
    const amount = 100_000;
    const { page, problems, close } = await openSwapPage(browser, service.ferry.pageUrl!, viewport);
    try {
      // The choice: chain → chain, the pair among those Ferry serves, the amount with fees and limits as typed.
      await page.getByLabel('Chain → chain').check();
      const offered = await page.getByLabel('Chain', { exact: true }).locator('option').allTextContents();
      assert.ok(offered.includes(`${from} → ${to}`) && offered.includes(`${to} → ${from}`), `Ferry's chain pairs are offered: ${offered.join(', ')}`);
      await page.getByLabel('Chain', { exact: true }).selectOption({ label: `${from} → ${to}` });
      const field = page.getByLabel(`Amount to send on ${from} (sat)`);
      await field.fill('');
      await field.pressSequentially('1');
      await page.getByText(/Out of limits/).waitFor(); // 1 sat: below the pair's minimum, said as the user types
      await field.pressSequentially('00000');
      await page.locator('#amount-error:empty').waitFor();
      assert.equal(await page.locator('#quote-result-label').textContent(), `You receive on ${to} (about)`);
      const quoted = satOf((await page.locator('#quote-result').textContent())!);
      assert.ok(quoted > 0.95 * amount && quoted < amount, `the quote shows what arrives: ${quoted}`);
      assert.match((await page.locator('#limits').textContent())!, /^Limits: [\d,]+ sat to [\d,]+ sat\.$/);
      await shot(page, `${prefix}-11-chain-choose`);
      await page.getByRole('button', { name: 'Continue' }).click();

      // The addresses: to receive on `to`, a refund on `from`; each checked for its chain (another chain's is refused).
      const destination = await service.chains[to].user.getNewAddress();
      const refundAddress = await service.chains[from].user.getNewAddress();
      const view = page.locator('#view-chain-addresses');
      const receive = view.getByLabel(new RegExp(`^Your ${to} .*address, to receive`));
      await receive.fill(refundAddress); // an address of the sending chain where the receiving chain's belongs
      await view.getByLabel(new RegExp(`^Your ${from} .*address for a refund`)).fill(refundAddress);
      await view.getByRole('button', { name: 'Continue' }).click();
      assert.match((await page.locator('#chain-destination-error').textContent())!, new RegExp(`is a ${from === 'BTC' ? 'Bitcoin' : 'Liquid'} address, but a swap on ${to} pays to`));
      assert.equal(await page.locator('#chain-refund-address-error').textContent(), '', 'the refund address, of the sending chain, is accepted');
      if (from === 'BTC') await shot(page, `${prefix}-12-chain-destination-refused`);
      await receive.fill(destination);
      await shot(page, `${prefix}-13-chain-addresses`);
      await view.getByRole('button', { name: 'Continue' }).click();

      // The rescue key first, then the swap.
      const create = page.getByRole('button', { name: 'Create swap' });
      assert.equal(await create.isDisabled(), true, 'no swap before the rescue key is saved');
      await page.getByLabel('I have saved my rescue key').check();
      await create.click();

      // What to send: the lockup address and amount as text and QR, and what Ferry locks for it.
      await page.getByRole('heading', { name: 'Send the coins' }).waitFor();
      let address = (await page.locator('#address-text').textContent())!.trim();
      const shown = (await page.locator('#pay-chain-amount').textContent())!;
      assert.equal(satOf(shown.replace(/ sat.*$/, '')), amount, `the page asks for what was typed: ${shown}`);
      const serverLock = satOf((await page.locator('#pay-chain-then').textContent())!.replace(/ sat.*$/, ''));
      assert.ok(serverLock > quoted && serverLock < amount, `Ferry's lockup as the page shows it: ${serverLock}`);
      assert.equal(await page.locator('#address-qr svg').count(), 1, 'a QR code of the address and amount');
      const id = (await page.locator('#swap-id').textContent())!.trim();
      if (options.reload) {
        // The tab reloaded before the coins were sent: the page shows the same swap again, and follows it.
        await page.reload();
        await page.locator('body[data-ready="true"]').waitFor();
        await page.getByRole('heading', { name: 'Send the coins' }).waitFor();
        assert.equal((await page.locator('#address-text').textContent())!.trim(), address, 'the same lockup address after the reload');
        assert.match(await steps(page), /Resumed from this browser's storage/);
        address = (await page.locator('#address-text').textContent())!.trim();
      }
      await shot(page, `${prefix}-14-chain-send`);

      // The user's wallet sends what the page shows to where it shows, and a block confirms it.
      const toBefore = await service.chains[to].userBalance();
      const lockupTxid = await service.chains[from].user.sendToAddress(address, satToBtc(amount));
      await service.chains[from].mine();

      // The page claims Ferry's lockup by itself and says so.
      await page.locator('#view-done:not([hidden])').waitFor();
      const title = (await page.locator('#done-title').textContent())!;
      assert.match(title, /^Received [\d,]+ sat$/, `the page ended with: ${title} ${await page.locator('#done-text').textContent()}\n  ${await steps(page)}`);
      const claimTxid = (await page.locator('#done-txid').textContent())!.trim();
      assert.match(claimTxid, /^[0-9a-f]{64}$/);
      assert.match(await steps(page), /Claimed [\d,]+ sat to your address, signed in this browser together with Ferry \(key path\)/);
      await shot(page, `${prefix}-15-chain-done`);
      const received = satOf(title);

      // Effects on the receiving chain: the claim the page names confirmed, pays the destination what it says, and
      // spends Ferry's lockup whole (what Ferry locked less the claim's fee).
      const toChain = service.chains[to];
      await toChain.mine();
      const claim = await toChain.node.getRawTransaction(claimTxid);
      assert.ok((claim.confirmations ?? 0) >= 1, 'the claim confirmed');
      const coin = (await toChain.user.listUnspent(1)).find((unspent) => unspent.txid === claimTxid);
      assert.ok(coin, 'the claim pays the user wallet');
      assert.equal(coin.scriptPubKey, Buffer.from(swapChain(to).decodeAddress(destination, 'regtest').script).toString('hex'), 'at the destination typed');
      assert.equal(Math.round(coin.amount * 1e8), received, 'the amount the page shows');
      assert.equal(Number((await toChain.userBalance()) - toBefore), received);
      assert.equal(claim.vin.length, 1);
      const [spentInput] = claim.vin as { txid: string; vout: number }[];
      const serverLockup = await toChain.node.getRawTransaction(spentInput.txid);
      const fee = to === 'L-BTC' ? claim.vout.filter((o) => o.scriptPubKey.type === 'fee').reduce((sum, o) => sum + Math.round(o.value * 1e8), 0) : undefined;
      if (fee !== undefined) assert.equal(received + fee, serverLock, "the claim takes Ferry's lockup of the amount the page showed, less its fee");
      else {
        const locked = Math.round(serverLockup.vout[spentInput.vout].value * 1e8);
        assert.equal(locked, serverLock, 'Ferry locked the amount the page showed');
        assert.ok(received < locked && locked - received < 2_000, `less the claim's fee: ${locked - received}`);
      }

      // Effects on the sending chain: Ferry's claim spent the user's lockup.
      const fromChain = service.chains[from];
      const script = Buffer.from(swapChain(from).decodeAddress(address, 'regtest').script).toString('hex');
      const lockup = await fromChain.node.getRawTransaction(lockupTxid);
      const output = lockup.vout.find((o) => o.scriptPubKey.hex === script);
      assert.ok(output, 'the user sent to the lockup address the page showed');
      if (from === 'BTC') assert.equal(Math.round(output.value * 1e8), amount);
      assert.equal(await fromChain.node.getTxOut(lockupTxid, output.n, true), null, 'the lockup is spent');
      const ferryClaim = ((await service.ferry.storage.swaps.get(id))?.data as { claimTransaction?: { txid: string } }).claimTransaction?.txid;
      assert.ok(ferryClaim, 'Ferry claimed the user lockup');
      const spent = (await fromChain.node.getRawTransaction(ferryClaim)).vin.some((input) => input.txid === lockupTxid && input.vout === output.n);
      assert.ok(spent, "Ferry's claim is what spent it");
      await fromChain.mine();
      assert.ok(((await fromChain.node.getRawTransaction(ferryClaim)).confirmations ?? 0) >= 1, "Ferry's claim confirmed");

      // The swap is kept in this browser, and listed.
      const listed = await page.locator('#history-list li').allTextContents();
      assert.equal(listed.length, 1);
      assert.match(listed[0], new RegExp(`${from} → ${to} · 100,000 sat · transaction\\.claimed`));
      assert.deepEqual(problems, [], 'the page ran without errors');
    } finally {
      await close();
    }
  }

  test('BTC → L-BTC at desktop width: clicked through, the user sends to the lockup shown, the page claims the L-BTC', async () => {
    await chainSwap('BTC', 'L-BTC', DESKTOP, 'desktop-btc');
  });

  test('L-BTC → BTC at phone width, the same way, with the page reloaded before the coins are sent', async () => {
    await chainSwap('L-BTC', 'BTC', PHONE, 'phone-lbtc', { reload: true });
  });
});
