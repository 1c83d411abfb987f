// The swap page Ferry serves, used as a person would: headless Chromium (Debian's, driven by playwright-core) opens the
// page of a devnet Ferry, and by clicking and typing chooses a reverse swap, gives an address, saves the rescue key
// and is shown an invoice; the devnet's alice pays the invoice read from the page's text, and the page claims the
// coins itself. The effects are checked on the chain: the claim the page names pays the user wallet. BTC at desktop
// width, L-BTC at phone width. Measured in the same run: what the page transfers (gzip, from Chromium's network
// events) for a BTC and an L-BTC swap (the secp256k1-zkp chunk for L-BTC only) and its time to interactive. An invoice
// is also scanned with the camera: Chromium's file camera plays a Y4M video of its QR code, written here.
// Screenshots of each view go to a temporary directory, or to docs/page/ with FERRY_PAGE_SCREENSHOTS=1.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { encodeQr, parseRefundFile, swapChain } from '@ferry/sdk/client/index.js';
import { startService, type Service } from '../client/support.ts';
import { BROWSER_FLAGS, chromiumPath } from '../browser/page.ts';
import { DESKTOP, PHONE, SHOTS, launchChromium, openSwapPage, shot, steps, type Opened } from './support.ts';

const found = chromiumPath();
const skip = 'skip' in found ? `no Chromium: ${found.skip}` : false;
/** A valid mainnet address: refused on the devnet (regtest), with the reason shown beside the field. */
const MAINNET_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

/** axe-core, the accessibility engine, evaluated in the page by the keyboard test. */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * A Y4M video (what Chromium's file camera plays, in a loop) of `text`'s QR code, black on white, still: the YUV4MPEG2
 * header, then frames of raw 4:2:0 pixels (a full-size luma plane, then two quarter-size chroma planes, grey here).
 */
function qrVideo(path: string, text: string): void {
  const symbol = encodeQr(new TextEncoder().encode(text), { level: 'L' });
  const [width, height] = [640, 480];
  const modules = symbol.size + 8; // and a quiet zone of 4 each side
  const scale = Math.floor((height - 16) / modules);
  assert.ok(scale >= 3, `the symbol fits the frame: ${symbol.size} modules`);
  const left = Math.floor((width - symbol.size * scale) / 2);
  const top = Math.floor((height - symbol.size * scale) / 2);
  const luma = Buffer.alloc(width * height, 255);
  symbol.dark.forEach((dark, at) => {
    if (!dark) return;
    const [row, column] = [Math.floor(at / symbol.size), at % symbol.size];
    for (let y = 0; y < scale; y++) luma.fill(0, (top + row * scale + y) * width + left + column * scale, (top + row * scale + y) * width + left + (column + 1) * scale);
  });
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma]);
  writeFileSync(path, Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`), ...Array<Buffer>(10).fill(frame)]));
}

// A hang guard, not a timing: nothing below waits on a clock; a swap's steps take seconds each on a busy machine.
describe('the swap page Ferry serves, in Chromium, against a devnet Ferry', { skip, timeout: 900_000 }, () => {
  let service: Service;
  let browser: Browser;

  before(async () => {
    service = await startService();
    assert.ok(service.ferry.pageUrl, 'ferry start serves the page by default');
    await service.ferry.page!.built; // timed below is the page in the browser, not its build at Ferry's start
    browser = await launchChromium((found as { path: string }).path);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const open = (viewport: { width: number; height: number }, on: Browser = browser): Promise<Opened> => openSwapPage(on, service.ferry.pageUrl!, viewport);

  /** The page's own files among `received` (not the API's answers): their count and bytes over the wire. */
  const pageFiles = (received: { url: string; bytes: number }[]) => {
    const files = received.filter(({ url }) => {
      const path = new URL(url).pathname;
      return path === '/' || path.startsWith('/page/');
    });
    return { files: files.length, kB: (files.reduce((total, { bytes }) => total + bytes, 0) / 1024).toFixed(1) };
  };
  const zkpChunkUrl = async () => new URL(`/${(await service.ferry.page!.built).zkpChunk}`, service.ferry.pageUrl).href;

  /**
   * axe-core's check of the view shown (WCAG 2 A and AA rules): what it finds serious or critical fails the test;
   * every finding is printed.
   */
  async function accessible(page: Page, view: string): Promise<void> {
    if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE);
    const { found, passed } = (await page.evaluate(
      `axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }).then((r) => ({ passed: r.passes.length, found: r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help })) }))`,
    )) as { passed: number; found: { id: string; impact: string; nodes: number; help: string }[] };
    console.log(`# swap page: axe-core on ${view}: ${passed} rules passed; ${found.length === 0 ? 'no violations' : found.map((v) => `${v.id} (${v.impact}, ${v.nodes})`).join(', ')}`);
    assert.ok(passed > 10, 'axe-core checked the view');
    const serious = found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(serious, [], `serious accessibility violations on ${view}`);
  }

  /**
   * A reverse swap of 50 000 sat on `currency`, clicked through as a person would; returns what the page showed at
   * the end, after checking each view on the way.
   */
  async function reverseSwap(currency: 'BTC' | 'L-BTC', viewport: { width: number; height: number }, prefix: string, options: { reload?: boolean } = {}) {
    const chain = service.chains[currency];
    const zkpUrl = await zkpChunkUrl();
    const { page, problems, received, close } = await open(viewport);
    try {
      // Budgets: what the browser fetched for the page itself until it became usable, and when that was.
      const initial = pageFiles(received);
      const readyMs = Number(await page.locator('body').getAttribute('data-ready-ms'));
      console.log(`# page budget: ${currency} swap, initial load: ${initial.files} files, ${initial.kB} kB transferred (gzip); interactive ${readyMs} ms after navigation began`);
      assert.ok(!received.some(({ url }) => url === zkpUrl), 'secp256k1-zkp is not part of the initial load');

      // The choice: the direction and chain among the pairs Ferry serves, the amount with its fees, live.
      const offered = await page.getByLabel('Chain', { exact: true }).locator('option').allTextContents();
      assert.ok(offered.some((text) => text.startsWith(currency)), `Ferry's chains are offered: ${offered.join(', ')}`);
      await page.getByLabel('Lightning → chain').check();
      await page.getByLabel('Chain', { exact: true }).selectOption(currency);
      const amount = page.getByLabel('Amount to pay over Lightning (sat)');
      await amount.fill('');
      await amount.pressSequentially('5');
      await page.getByText(/Out of limits/).waitFor(); // 5 sat: below the pair's minimum, said as the user types
      await amount.pressSequentially('0000');
      await page.locator('#amount-error:empty').waitFor();
      const receive = Number((await page.locator('#quote-result').textContent())!.replace(/\D/g, ''));
      assert.ok(receive > 40_000 && receive < 50_000, `the quote shows what arrives: ${receive}`);
      await shot(page, `${prefix}-1-choose`);
      await page.getByRole('button', { name: 'Continue' }).click();

      // The destination: an address of another network is refused, with the reason beside the field.
      const address = page.getByLabel(/Your .* address/);
      await address.fill(MAINNET_ADDRESS);
      await address.press('Enter');
      const refusal = await page.locator('#destination-error').textContent();
      assert.match(refusal ?? '', /^That is a mainnet BTC \(Bitcoin\) address, but this Ferry swaps on regtest/);
      await shot(page, `${prefix}-2-destination-refused`);
      const destination = await chain.user.getNewAddress();
      await address.fill(destination);
      await page.getByRole('button', { name: 'Continue' }).click();

      // The rescue key: the swap cannot be created before the user says it is saved; the download carries the words.
      const create = page.getByRole('button', { name: 'Create swap' });
      assert.equal(await create.isDisabled(), true, 'no swap before the rescue key is saved');
      const words = (await page.locator('#rescue-words').textContent())!.trim();
      assert.equal(words.split(' ').length, 12);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download rescue key' }).click()]);
      assert.ok(readFileSync((await download.path())!, 'utf8').includes(words), 'the downloaded file holds the rescue key');
      await shot(page, `${prefix}-3-rescue-key`);
      await page.getByLabel('I have saved my rescue key').check();
      await create.click();

      // The invoice, as QR and text: alice pays what the page shows.
      await page.getByRole('heading', { name: 'Pay this invoice' }).waitFor();
      const invoice = (await page.locator('#invoice-text').textContent())!.trim();
      assert.match(invoice, /^lnbcrt500u1/);
      assert.equal(await page.locator('#invoice-qr svg').count(), 1, 'a QR code of the invoice');
      if (options.reload) {
        // The tab reloaded (or closed and opened again) before the payment: the page shows the same swap, and follows it.
        await page.reload();
        await page.locator('body[data-ready="true"]').waitFor();
        await page.getByRole('heading', { name: 'Pay this invoice' }).waitFor();
        assert.equal((await page.locator('#invoice-text').textContent())!.trim(), invoice, 'the same invoice after the reload');
        assert.match(await steps(page), /Resumed from this browser's storage/);
      }
      await shot(page, `${prefix}-4-invoice`);
      const aliceBefore = await service.channelBalance('alice');
      const balanceBefore = await chain.userBalance();
      const payment = service.lightning('alice').payInvoice({ paymentRequest: invoice, feeLimitMsat: 1_000_000n, timeoutSeconds: 120 });

      // The page claims by itself and says so.
      await page.locator('#view-done:not([hidden])').waitFor();
      const title = (await page.locator('#done-title').textContent())!;
      const txid = (await page.locator('#done-txid').textContent())!.trim();
      assert.match(title, /^Received [\d,]+ sat$/, `the page ended with: ${title} ${await page.locator('#done-text').textContent()}\n  ${await steps(page)}`);
      assert.match(txid, /^[0-9a-f]{64}$/);
      assert.equal((await payment).status, 'SUCCEEDED');
      await shot(page, `${prefix}-5-done`);

      // Effects: the claim the page names is on chain and is the user wallet's coin, of the amount the page shows.
      const amountReceived = BigInt(title.replace(/\D/g, ''));
      await chain.mine();
      assert.ok(((await chain.node.getRawTransaction(txid)).confirmations ?? 0) >= 1, 'the claim confirmed');
      const coin = (await chain.user.listUnspent(1)).find((u) => u.txid === txid);
      assert.ok(coin, 'the claim pays the user wallet');
      assert.equal(BigInt(Math.round(coin.amount * 1e8)), amountReceived);
      assert.equal((await chain.userBalance()) - balanceBefore, amountReceived);
      assert.equal(aliceBefore - (await service.channelBalance('alice')), 50_000);

      // The swap is kept in this browser, and listed.
      const listed = await page.locator('#history-list li').allTextContents();
      assert.equal(listed.length, 1);
      assert.match(listed[0], new RegExp(`Lightning → ${currency} · 50,000 sat · invoice\\.settled`));
      // What the whole swap fetched of the page's files: the zkp chunk for L-BTC only (when the swap needed it).
      const whole = pageFiles(received);
      const zkp = received.filter(({ url }) => url === zkpUrl);
      console.log(`# page budget: ${currency} swap, whole swap: ${whole.files} page files, ${whole.kB} kB transferred (gzip); zkp chunk fetched ${zkp.length} times (${(zkp.reduce((t, { bytes }) => t + bytes, 0) / 1024).toFixed(1)} kB)`);
      if (currency === 'BTC') assert.equal(zkp.length, 0, 'a BTC swap never fetches the zkp chunk');
      else assert.ok(zkp.length >= 1, 'an L-BTC swap fetches the zkp chunk');
      assert.deepEqual(problems, [], 'the page ran without errors');
      return { txid, received: amountReceived };
    } finally {
      await close();
    }
  }

  test('BTC reverse swap at desktop width: clicked through, alice pays the invoice shown, the page claims into the user wallet', async () => {
    await reverseSwap('BTC', DESKTOP, 'desktop-btc');
  });

  test('L-BTC reverse swap at phone width, the same way, with the page reloaded before the invoice is paid', async () => {
    await reverseSwap('L-BTC', PHONE, 'phone-lbtc', { reload: true });
  });

  test('keyboard only: from the first Tab to the invoice, every control reached in order and used by its keys', async () => {
    const { page, problems, close } = await open(DESKTOP);
    const focused = () => page.evaluate(`(() => { const e = document.activeElement; return e.id || e.getAttribute('name') || e.textContent.trim(); })()`);
    try {
      await accessible(page, 'the choice');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'direction', 'the direction first');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'chain');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'amount');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('60000');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'continue');
      await page.keyboard.press('Enter');
      assert.equal(await focused(), 'destination', 'the address field takes the focus');
      await page.keyboard.type(MAINNET_ADDRESS);
      await page.keyboard.press('Enter');
      await accessible(page, 'the destination, refused');
      await page.keyboard.press('Control+A');
      await page.keyboard.type(await service.user.getNewAddress());
      await page.keyboard.press('Enter');
      assert.equal(await focused(), 'rescue-title', 'the rescue key view is announced from its heading');
      await accessible(page, 'the rescue key');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'rescue-download');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'rescue-saved');
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'create');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Pay this invoice' }).waitFor();
      assert.equal(await focused(), 'pay-invoice-title');
      assert.match((await page.locator('#invoice-text').textContent())!, /^lnbcrt600u1/);
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'copy-invoice');
      await accessible(page, 'the invoice');
      assert.deepEqual(problems, [], 'the page ran without errors');
    } finally {
      await close();
    }
  });

  test('Ferry unreachable at the moment of creating: the page says so, keeps nothing, and the same click works once it answers', async () => {
    const { page, problems, close } = await open(DESKTOP);
    try {
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel(/Your .* address/).fill(await service.user.getNewAddress());
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel('I have saved my rescue key').check();
      // The network drops the creation call (the browser's own request, cut before it reaches Ferry).
      await page.route('**/v2/swap/reverse', (route) => (route.request().method() === 'POST' ? route.abort('connectionrefused') : route.fallback()));
      await page.getByRole('button', { name: 'Create swap' }).click();
      await page.locator('#error:not([hidden])').waitFor();
      assert.match((await page.locator('#error').textContent())!, /^The swap was not created: Ferry cannot be reached right now/);
      assert.equal(await page.locator('#history-list li').count(), 0, 'no swap kept');
      await shot(page, 'desktop-btc-10-unreachable');
      await page.unroute('**/v2/swap/reverse');
      await page.getByRole('button', { name: 'Create swap' }).click();
      await page.getByRole('heading', { name: 'Pay this invoice' }).waitFor();
      assert.equal(await page.locator('#error').isHidden(), true, 'the error is gone');
      assert.equal(await page.locator('#history-list li').count(), 1);
      // The failed call is the one error the browser reports.
      assert.ok(problems.every((problem) => /ERR_CONNECTION_REFUSED|Failed to load resource/.test(problem)), problems.join('\n'));
    } finally {
      await close();
    }
  });

  /** A submarine swap for a fresh invoice of alice, clicked through to the view that says what to send. */
  async function startSubmarine(page: Page, currency: 'BTC' | 'L-BTC', sat: number, shots?: string) {
    const { invoice } = await service.invoice('alice', sat);
    await page.getByLabel('Chain → Lightning').check();
    await page.getByLabel('Chain', { exact: true }).selectOption(currency);
    await page.getByLabel('Amount of the invoice to pay (sat)').fill(String(sat));
    const send = Number((await page.locator('#quote-result').textContent())!.replace(/\D/g, ''));
    assert.ok(send > sat, `the quote shows what to send: ${send}`);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Lightning invoice (BOLT11)').fill(invoice);
    const refundAddress = await service.chains[currency].user.getNewAddress();
    await page.getByLabel(/address for a refund/).fill(refundAddress);
    if (shots) await shot(page, `${shots}-6-submarine-invoice`);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('I have saved my rescue key').check();
    await page.getByRole('button', { name: 'Create swap' }).click();

    // What to send, as the page shows it; and the refund file it offers, for this swap.
    await page.getByRole('heading', { name: 'Send the coins' }).waitFor();
    const address = (await page.locator('#address-text').textContent())!.trim();
    const toSend = Number((await page.locator('#pay-chain-amount').textContent())!.replace(/ sat.*$/, '').replace(/\D/g, ''));
    const id = (await page.locator('#swap-id').textContent())!.trim();
    assert.equal(await page.locator('#address-qr svg').count(), 1, 'a QR code of the address and amount');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download refund file' }).click()]);
    const refund = parseRefundFile(JSON.parse(readFileSync((await download.path())!, 'utf8')));
    assert.equal(refund.id, id);
    if (shots) await shot(page, `${shots}-7-submarine-send`);
    return { address, toSend, refundAddress };
  }

  for (const [currency, viewport, prefix] of [['BTC', DESKTOP, 'desktop-btc'], ['L-BTC', PHONE, 'phone-lbtc']] as const) {
    test(`${currency} submarine swap at ${prefix.split('-')[0]} width: the invoice pasted, the coins sent to the address shown, alice is paid`, async () => {
      const chain = service.chains[currency];
      const { page, problems, close } = await open(viewport);
      try {
        const { address, toSend } = await startSubmarine(page, currency, 30_000, prefix);
        const aliceBefore = await service.channelBalance('alice');
        const lockupTxid = await chain.user.sendToAddress(address, satToBtc(toSend));
        await chain.mine();
        await page.locator('#view-done:not([hidden])').waitFor();
        const title = (await page.locator('#done-title').textContent())!;
        assert.equal(title, 'Invoice paid', `the page ended with: ${title} ${await page.locator('#done-text').textContent()}\n  ${await steps(page)}`);
        assert.match(await steps(page), /co-signed/);
        await shot(page, `${prefix}-8-submarine-done`);

        // Effects: alice was paid, and Ferry spent the lockup the user sent to the address the page showed.
        assert.equal((await service.channelBalance('alice')) - aliceBefore, 30_000);
        const script = swapChain(currency).decodeAddress(address, 'regtest').script;
        const lockup = await chain.node.getRawTransaction(lockupTxid);
        const output = lockup.vout.find((o) => o.scriptPubKey.hex === Buffer.from(script).toString('hex'))!;
        if (currency === 'BTC') assert.equal(BigInt(Math.round(output.value * 1e8)), BigInt(toSend), 'the amount the page asked for');
        assert.equal(await chain.node.getTxOut(lockupTxid, output.n, true), null, 'Ferry spent the lockup');
        assert.deepEqual(problems, [], 'the page ran without errors');
      } finally {
        await close();
      }
    });
  }

  /** A Chromium whose camera (the only one it has) films `text`'s QR code. */
  async function cameraShowing(text: string): Promise<Browser> {
    const video = join(mkdtempSync(join(tmpdir(), 'ferry-page-camera-')), 'qr.y4m');
    qrVideo(video, text);
    return chromium.launch({
      executablePath: (found as { path: string }).path,
      headless: true,
      args: [...BROWSER_FLAGS, '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${video}`],
      timeout: 0,
    });
  }

  test("scanning the invoice with the camera (Chromium's file camera playing its QR code): the field fills, the swap is made and alice paid", async () => {
    // The invoice's QR code as the camera sees it, in a Chromium of its own (the camera is the browser's, one file).
    const { invoice } = await service.invoice('alice', 25_000);
    const camera = await cameraShowing(invoice.toUpperCase());
    try {
      const { page, problems, received, close } = await open(DESKTOP, camera);
      try {
        await page.getByLabel('Chain → Lightning').check();
        await page.getByLabel('Chain', { exact: true }).selectOption('BTC');
        await page.getByLabel('Amount of the invoice to pay (sat)').fill('25000');
        await page.getByRole('button', { name: 'Continue' }).click();
        const field = page.getByLabel('Lightning invoice (BOLT11)');
        assert.equal(await field.inputValue(), '');
        await page.getByRole('button', { name: 'Scan QR code of the invoice with the camera' }).click();
        // read, or the reason it could not be (said beside the field): whichever comes first
        await Promise.race([page.locator('#invoice-input[data-scanned-by]').waitFor({ state: 'attached' }), page.locator('#invoice-input-error:not(:empty)').waitFor()]);
        assert.equal(await page.locator('#invoice-input-error').textContent(), '', 'no camera error');
        const reader = await field.getAttribute('data-scanned-by');
        assert.equal(await page.locator('dialog.scan').count(), 0, 'the camera view is closed');
        assert.equal(await field.inputValue(), invoice, 'the scanned invoice, in lower case');
        const scanned = received.filter(({ url }) => new URL(url).pathname.startsWith('/page/assets/'));
        console.log(`# page budget: scan read by ${reader}; chunks fetched so far: ${scanned.map(({ url, bytes }) => `${new URL(url).pathname.split('/').at(-1)} ${(bytes / 1024).toFixed(1)} kB`).join(', ')}`);
        await shot(page, 'desktop-btc-11-scanned-invoice');

        const refundAddress = await service.user.getNewAddress();
        await page.getByLabel(/address for a refund/).fill(refundAddress);
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.getByLabel('I have saved my rescue key').check();
        await page.getByRole('button', { name: 'Create swap' }).click();
        await page.getByRole('heading', { name: 'Send the coins' }).waitFor();
        const address = (await page.locator('#address-text').textContent())!.trim();
        const toSend = Number((await page.locator('#pay-chain-amount').textContent())!.replace(/ sat.*$/, '').replace(/\D/g, ''));

        // Effects: the swap pays the scanned invoice, so alice is paid once the coins are sent.
        const aliceBefore = await service.channelBalance('alice');
        await service.user.sendToAddress(address, satToBtc(toSend));
        await service.mine();
        await page.locator('#view-done:not([hidden])').waitFor();
        assert.equal(await page.locator('#done-title').textContent(), 'Invoice paid', await steps(page));
        assert.equal((await service.channelBalance('alice')) - aliceBefore, 25_000);
        assert.deepEqual(problems, [], 'the page ran without errors');
      } finally {
        await close();
      }
    } finally {
      await camera.close();
    }
  });

  test('scanning the address with the camera (a BIP21 URI in upper case): the field takes the address, and the claim pays it', async () => {
    const destination = await service.user.getNewAddress();
    const camera = await cameraShowing(`bitcoin:${destination}?amount=0.0004`.toUpperCase());
    try {
      const { page, problems, close } = await open(PHONE, camera);
      try {
        await page.getByLabel('Lightning → chain').check();
        await page.getByLabel('Chain', { exact: true }).selectOption('BTC');
        await page.getByLabel('Amount to pay over Lightning (sat)').fill('40000');
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.getByRole('button', { name: 'Scan QR code of the address with the camera' }).click();
        await Promise.race([page.locator('#destination[data-scanned-by]').waitFor({ state: 'attached' }), page.locator('#destination-error:not(:empty)').waitFor()]);
        assert.equal(await page.locator('#destination-error').textContent(), '', 'no camera error');
        assert.equal(await page.getByLabel(/Your .* address/).inputValue(), destination, 'the address out of the URI, in its own case');
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.getByLabel('I have saved my rescue key').check();
        await page.getByRole('button', { name: 'Create swap' }).click();
        await page.getByRole('heading', { name: 'Pay this invoice' }).waitFor();
        const invoice = (await page.locator('#invoice-text').textContent())!.trim();
        const payment = service.lightning('alice').payInvoice({ paymentRequest: invoice, feeLimitMsat: 1_000_000n, timeoutSeconds: 120 });
        await page.locator('#view-done:not([hidden])').waitFor();
        assert.equal((await payment).status, 'SUCCEEDED');
        // Effects: the claim the page made pays the scanned address.
        const txid = (await page.locator('#done-txid').textContent())!.trim();
        const claim = await service.node.getRawTransaction(txid);
        assert.ok(claim.vout.some((output) => output.scriptPubKey.address === destination), 'the claim pays the scanned address');
        assert.deepEqual(problems, [], 'the page ran without errors');
      } finally {
        await close();
      }
    } finally {
      await camera.close();
    }
  });

  test('BTC submarine swap that fails (too little sent): the page refunds the coins to the refund address by itself', async () => {
    const { page, problems, close } = await open(DESKTOP);
    try {
      const { address, toSend, refundAddress } = await startSubmarine(page, 'BTC', 20_000);
      const aliceBefore = await service.channelBalance('alice');
      const lockupTxid = await service.user.sendToAddress(address, satToBtc(toSend - 1_000));
      await service.mine();
      await page.locator('#view-done:not([hidden])').waitFor();
      const title = (await page.locator('#done-title').textContent())!;
      assert.match(title, /^Refunded [\d,]+ sat$/, `the page ended with: ${title} ${await page.locator('#done-text').textContent()}\n  ${await steps(page)}`);
      const txid = (await page.locator('#done-txid').textContent())!.trim();
      await shot(page, 'desktop-btc-9-submarine-refunded');

      // Effects: the refund the page names spends the lockup and pays the refund address the amount it shows.
      await service.mine();
      const refund = await service.node.getRawTransaction(txid);
      assert.ok((refund.confirmations ?? 0) >= 1, 'the refund confirmed');
      assert.ok(refund.vin.some((input) => input.txid === lockupTxid), 'it spends the lockup');
      const paid = refund.vout.find((output) => output.scriptPubKey.address === refundAddress);
      assert.ok(paid, 'it pays the refund address');
      assert.equal(BigInt(Math.round(paid.value * 1e8)), BigInt(title.replace(/\D/g, '')));
      assert.equal(await service.channelBalance('alice'), aliceBefore, 'alice was not paid');
      assert.deepEqual(problems, [], 'the page ran without errors');
      console.log(`# swap page: screenshots in ${SHOTS}`);
    } finally {
      await close();
    }
  });
});
