// The swap page's refund view, used as a person would, in headless Chromium (Debian's, driven by playwright-core)
// against a devnet Ferry: a BTC submarine swap is started in the page for an invoice Ferry cannot pay (more than its
// channel to alice holds), the refund file (or the rescue key) is saved, and that browser is closed before the coins
// are sent, so no page follows the swap. The coins go to the lockup, Ferry fails to pay. Then a fresh browser profile
// (nothing of the swap in its storage) opens the refund view, is given the downloaded file or the rescue key, and
// refunds to a typed address: with Ferry's signature (key path), or, with Ferry's refund endpoint cut, after the
// page said how many blocks remain, alone through the script path. Coins sent only after the swap expired, which
// Ferry never takes as its lockup, are refunded from the refund file plus the lockup transaction the user gives (bad
// ones refused in words, nothing spent). Effects are checked on the chain in Node: the
// refund spends the lockup output, pays the typed address the lockup's value less the fee, and confirms.
// Screenshots go to a temporary directory, or to docs/page/ with FERRY_PAGE_SCREENSHOTS=1.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { parseRefundFile, refundFilePng } from '@ferry/sdk/client/index.js';
import { startService, type Service } from '../client/support.ts';
import { chromiumPath } from '../browser/page.ts';
import { unpayableInvoice } from './support.ts';

const found = chromiumPath();
const skip = 'skip' in found ? `no Chromium: ${found.skip}` : false;
const SHOTS = process.env.FERRY_PAGE_SCREENSHOTS === '1' ? resolve('../../docs/page') : mkdtempSync(join(tmpdir(), 'ferry-page-shots-'));
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** A valid mainnet address: refused on the devnet (regtest), with the reason beside the field. */
const MAINNET_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

interface Opened {
  page: Page;
  problems: string[];
  close(): Promise<void>;
}

/** A swap started in the page and left: what the user kept, and where to send. */
interface Left {
  id: string;
  address: string;
  toSend: number;
  refundFilePath: string;
  words: string;
}

// A hang guard, not a timing: nothing below waits on a clock.
describe('the swap page refund view, in Chromium, against a devnet Ferry', { skip, timeout: 900_000 }, () => {
  let service: Service;
  let browser: Browser;
  const files = mkdtempSync(join(tmpdir(), 'ferry-refund-files-'));

  before(async () => {
    service = await startService();
    await service.ferry.page!.built;
    browser = await chromium.launch({ executablePath: (found as { path: string }).path, headless: true, args: FLAGS, timeout: 0 });
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  /** A fresh browser profile (its own storage) at a viewport, on the page, once its script says it is ready. */
  async function open(viewport: { width: number; height: number }): Promise<Opened> {
    const context = await browser.newContext({ viewport, acceptDownloads: true });
    context.setDefaultTimeout(0);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.stack ?? error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    await page.goto(service.ferry.pageUrl!);
    await page.locator('body[data-ready="true"]').waitFor();
    return { page, problems, close: () => context.close() };
  }

  async function accessible(page: Page, view: string): Promise<void> {
    if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE);
    const { found, passed } = (await page.evaluate(
      `axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }).then((r) => ({ passed: r.passes.length, found: r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help })) }))`,
    )) as { passed: number; found: { id: string; impact: string; nodes: number; help: string }[] };
    console.log(`# refund view: axe-core on ${view}: ${passed} rules passed; ${found.length === 0 ? 'no violations' : found.map((v) => `${v.id} (${v.impact}, ${v.nodes})`).join(', ')}`);
    assert.ok(passed > 10, 'axe-core checked the view');
    const serious = found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(serious, [], `serious accessibility violations on ${view}`);
  }

  const shot = async (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  /**
   * In a browser of its own: a BTC submarine swap for an unpayable invoice, clicked through to what to send; the
   * rescue key's words read and the refund file downloaded, as the page asks. That browser is then closed.
   */
  async function startAndLeave(): Promise<Left> {
    const { page, problems, close } = await open(DESKTOP);
    try {
      const { invoice } = await unpayableInvoice(service);
      await page.getByLabel('Chain → Lightning').check();
      await page.getByLabel('Chain', { exact: true }).selectOption('BTC');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel('Lightning invoice (BOLT11)').fill(invoice);
      await page.getByLabel(/address for a refund/).fill(await service.user.getNewAddress());
      await page.getByRole('button', { name: 'Continue' }).click();
      const words = (await page.locator('#rescue-words').textContent())!.trim();
      await page.getByLabel('I have saved my rescue key').check();
      await page.getByRole('button', { name: 'Create swap' }).click();
      await page.getByRole('heading', { name: 'Send the coins' }).waitFor();
      const address = (await page.locator('#address-text').textContent())!.trim();
      const toSend = Number((await page.locator('#pay-chain-amount').textContent())!.replace(/ sat.*$/, '').replace(/\D/g, ''));
      const id = (await page.locator('#swap-id').textContent())!.trim();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download refund file' }).click()]);
      const refundFilePath = join(files, download.suggestedFilename());
      await download.saveAs(refundFilePath);
      assert.equal(parseRefundFile(JSON.parse(readFileSync(refundFilePath, 'utf8'))).id, id);
      assert.deepEqual(problems, [], 'the page ran without errors');
      return { id, address, toSend, refundFilePath, words };
    } finally {
      await close(); // no page follows the swap from here: nothing refunds it by itself
    }
  }

  /** Funds the lockup from the user wallet and waits until Ferry has given up paying the invoice. */
  async function fundAndFail(left: Left): Promise<{ lockupTxid: string; vout: number; value: bigint }> {
    const lockupTxid = await service.user.sendToAddress(left.address, satToBtc(left.toSend));
    await service.mine();
    for (;;) {
      const response = await fetch(`${service.apiUrl}/v2/swap/${left.id}`);
      const { status } = (await response.json()) as { status: string };
      if (status === 'invoice.failedToPay') break;
      assert.ok(!/claimed|lockupFailed|expired/.test(status), `the swap ended otherwise: ${status}`);
      await new Promise((done) => setTimeout(done, 200)); // the next look, not a ceiling
    }
    const lockup = await service.node.getRawTransaction(lockupTxid);
    const output = lockup.vout.find((o) => o.scriptPubKey.address === left.address)!;
    return { lockupTxid, vout: output.n, value: BigInt(Math.round(output.value * 1e8)) };
  }

  /** The refund the page names: confirmed, spends the lockup output, pays `to` the amount the page shows. */
  async function checkRefund(page: Page, lockup: { lockupTxid: string; vout: number; value: bigint }, to: string) {
    await page.locator('#refund-tx-line:not([hidden])').waitFor();
    const said = (await page.locator('#refund-result').textContent())!;
    const txid = (await page.locator('#refund-txid').textContent())!.trim();
    const [, amountText, feeText] = said.match(/^Refunded ([\d,]+) sat to .* \(network fee ([\d,]+) sat\)/)!;
    const amount = BigInt(amountText.replace(/\D/g, ''));
    const fee = BigInt(feeText.replace(/\D/g, ''));
    await service.mine();
    const refund = await service.node.getRawTransaction(txid);
    assert.ok((refund.confirmations ?? 0) >= 1, 'the refund confirmed');
    assert.equal(refund.vin.length, 1);
    assert.deepEqual([refund.vin[0].txid, refund.vin[0].vout], [lockup.lockupTxid, lockup.vout], 'it spends the lockup output');
    assert.equal(await service.node.getTxOut(lockup.lockupTxid, lockup.vout, true), null, 'the lockup is spent');
    assert.equal(refund.vout.length, 1);
    assert.equal(refund.vout[0].scriptPubKey.address, to, 'it pays the typed address');
    assert.equal(BigInt(Math.round(refund.vout[0].value * 1e8)), amount, 'the amount the page shows');
    assert.equal(amount + fee, lockup.value, 'the lockup less the fee the page shows');
    assert.ok(fee > 0n && fee < 5_000n, `a plain fee: ${fee}`);
    return { txid, said, witness: refund.vin[0].txinwitness ?? [] };
  }

  test('a failed BTC submarine swap refunded from its downloaded refund file in a fresh browser, together with Ferry', async () => {
    const left = await startAndLeave();
    const lockup = await fundAndFail(left);
    assert.equal(lockup.value, BigInt(left.toSend));

    const { page, problems, close } = await open(DESKTOP);
    try {
      assert.equal(await page.locator('#history-list li').count(), 0, 'this browser has no record of the swap');
      await page.locator('#view-choose').getByRole('button', { name: 'Refund a swap' }).click();
      await page.getByRole('heading', { name: 'Refund a swap' }).waitFor();
      await page.getByLabel('Refund file (JSON or PNG), or rescue key file').setInputFiles(left.refundFilePath);
      await shot(page, 'desktop-btc-11-refund-file');
      // Ferry unreachable while the swap is looked up (the browser's request cut): said as such, and the same button
      // works once Ferry answers.
      const lookup = `**/v2/swap/${left.id}`;
      await page.route(lookup, (route) => route.abort('connectionrefused'));
      await page.getByRole('button', { name: 'Find my swap' }).click();
      await page.locator('#refund-find-error:not(:empty)').waitFor();
      assert.equal(await page.locator('#refund-find-error').textContent(), 'Ferry cannot be reached right now: check your connection and try again.');
      assert.equal(await page.locator('#refund-form').isHidden(), true, 'no swap offered');
      await page.unroute(lookup);
      await page.getByRole('button', { name: 'Find my swap' }).click();
      const listed = page.locator('#refund-swaps label');
      await listed.first().waitFor();
      assert.equal(await listed.count(), 1);
      const line = (await listed.textContent())!;
      assert.match(line, new RegExp(`Swap ${left.id} · BTC \\(Bitcoin\\) · ${left.toSend.toLocaleString('en-US')} sat locked · Ferry could not pay the invoice`));

      // The address is checked for the swap's chain and network before anything is signed.
      const to = page.getByLabel(/Your BTC \(Bitcoin\) address for the refund \(regtest\)/);
      await to.fill(MAINNET_ADDRESS);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      assert.match((await page.locator('#refund-to-error').textContent())!, /^That is a mainnet BTC \(Bitcoin\) address, but this Ferry swaps on regtest/);
      const destination = await service.user.getNewAddress();
      await to.fill(destination);
      await shot(page, 'desktop-btc-12-refund-found');
      const balanceBefore = await service.userBalance();
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      const { txid, said, witness } = await checkRefund(page, lockup, destination);
      assert.match(said, /together with Ferry/);
      assert.match((await listed.textContent())!, new RegExp(`refunded in transaction ${txid}$`));
      assert.equal(await page.getByRole('button', { name: 'Refund', exact: true }).isDisabled(), true, 'nothing left to refund');
      assert.equal(witness.length, 1, 'the key path: one signature, Ferry and the page together');
      assert.equal((await service.userBalance()) - balanceBefore, lockup.value - BigInt(said.match(/network fee ([\d,]+) sat/)![1].replace(/\D/g, '')));
      await shot(page, 'desktop-btc-13-refunded');

      // The refund file's PNG QR code (the SDK's other format) is read in the page as well, and names the same swap.
      const png = join(files, `${left.id}.png`);
      writeFileSync(png, refundFilePng(parseRefundFile(JSON.parse(readFileSync(left.refundFilePath, 'utf8')))));
      await page.getByRole('button', { name: 'Back' }).first().click();
      await page.locator('#history').getByRole('button', { name: 'Refund a swap' }).click();
      await page.getByLabel('Refund file (JSON or PNG), or rescue key file').setInputFiles(png);
      await page.getByRole('button', { name: 'Find my swap' }).click();
      await listed.first().waitFor();
      assert.match((await listed.textContent())!, new RegExp(`Swap ${left.id} · BTC`));
      // The cut lookup is the one error the browser reports.
      assert.ok(problems.every((problem) => /ERR_CONNECTION_REFUSED|Failed to load resource/.test(problem)), problems.join('\n'));
    } finally {
      await close();
    }
  });

  test('the rescue key finds the swap; with Ferry not signing, the page says how many blocks remain, then refunds alone by the script path', async () => {
    const left = await startAndLeave();
    const lockup = await fundAndFail(left);

    const { page, problems, close } = await open(PHONE);
    try {
      await page.locator('#view-choose').getByRole('button', { name: 'Refund a swap' }).click();
      await page.getByLabel('Or your rescue key (the twelve words)').fill(left.words);
      await page.getByRole('button', { name: 'Find my swap' }).click();
      const listed = page.locator('#refund-swaps label');
      await listed.first().waitFor();
      assert.equal(await listed.count(), 1, 'the one swap of this rescue key');
      assert.match((await listed.textContent())!, new RegExp(`Swap ${left.id} · BTC \\(Bitcoin\\) · ${left.toSend.toLocaleString('en-US')} sat locked · Ferry could not pay the invoice`));
      const destination = await service.user.getNewAddress();
      await page.getByLabel(/address for the refund/).fill(destination);

      // Ferry's refund endpoint cut (the browser's request, aborted): the key path is not there, the timeout not reached.
      await page.route('**/v2/swap/submarine/*/refund', (route) => route.abort('connectionrefused'));
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await page.locator('#refund-result.bad').waitFor();
      const said = (await page.locator('#refund-result').textContent())!;
      const timeout = parseRefundFile(JSON.parse(readFileSync(left.refundFilePath, 'utf8'))).timeoutBlockHeight;
      const height = await service.node.getBlockCount();
      const blocks = timeout - height;
      assert.ok(blocks > 0);
      assert.match(said, new RegExp(`^Ferry did not sign a refund now .*once block ${timeout} is mined: ${blocks} more blocks from now \\(about `));
      assert.equal(await service.node.getTxOut(lockup.lockupTxid, lockup.vout, true) !== null, true, 'nothing spent the lockup');
      await shot(page, 'phone-btc-14-refund-too-early');

      // The timeout block mined: the same button refunds without Ferry.
      await service.mine(blocks);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      const { said: done, witness } = await checkRefund(page, lockup, destination);
      assert.match(done, /alone, through the timeout script/);
      assert.equal(witness.length, 3, 'the script path: signature, refund leaf, control block');
      await shot(page, 'phone-btc-15-refunded');
      assert.ok(problems.every((problem) => /ERR_CONNECTION_REFUSED|Failed to load resource/.test(problem)), problems.join('\n'));
    } finally {
      await close();
    }
  });

  test('coins sent after the swap expired, which Ferry never saw: refunded from the refund file and the lockup transaction, bad ones refused', async () => {
    const left = await startAndLeave();
    // The swap expires with nothing sent: its timeout block mined, Ferry says so.
    const { timeoutBlockHeight } = parseRefundFile(JSON.parse(readFileSync(left.refundFilePath, 'utf8')));
    await service.mine(Math.max(1, timeoutBlockHeight - (await service.node.getBlockCount())));
    for (;;) {
      const { status } = (await (await fetch(`${service.apiUrl}/v2/swap/${left.id}`)).json()) as { status: string };
      if (status === 'swap.expired') break;
      await new Promise((done) => setTimeout(done, 200)); // the next look, not a ceiling
    }
    // Then the user's wallet sends the coins all the same; Ferry does not take them as the swap's lockup.
    const lockupTxid = await service.user.sendToAddress(left.address, satToBtc(left.toSend));
    await service.mine();
    const lockupTx = await service.node.getRawTransaction(lockupTxid);
    const vout = lockupTx.vout.find((o) => o.scriptPubKey.address === left.address)!.n;
    const lockup = { lockupTxid, vout, value: BigInt(left.toSend) };
    const seen = await fetch(`${service.apiUrl}/v2/swap/submarine/${left.id}/transaction`);
    assert.ok(seen.status >= 400 && seen.status < 500, `Ferry reports no lockup: ${seen.status}`);
    assert.equal(((await (await fetch(`${service.apiUrl}/v2/swap/${left.id}`)).json()) as { status: string }).status, 'swap.expired');
    // A transaction of the same wallet that pays elsewhere, and its raw hex.
    const otherTxid = await service.user.sendToAddress(await service.user.getNewAddress(), 0.001);
    const otherHex = await service.node.getRawTransactionHex(otherTxid);

    const { page, problems, close } = await open(DESKTOP);
    try {
      await page.locator('#view-choose').getByRole('button', { name: 'Refund a swap' }).click();
      await page.getByLabel('Refund file (JSON or PNG), or rescue key file').setInputFiles(left.refundFilePath);
      await page.getByRole('button', { name: 'Find my swap' }).click();
      const listed = page.locator('#refund-swaps label');
      await listed.first().waitFor();
      assert.match((await listed.textContent())!, new RegExp(`Swap ${left.id} · BTC \\(Bitcoin\\) · the swap expired · Ferry saw no coins sent to it: give the transaction that sent them$`));
      const given = page.getByLabel('The transaction that sent the coins: its id, or the whole transaction in hex');
      assert.equal(await given.isVisible(), true, 'the page asks for the lockup transaction');
      const destination = await service.user.getNewAddress();
      await page.getByLabel(/Your BTC \(Bitcoin\) address for the refund/).fill(destination);

      // Bad input: said beside the field, nothing signed, nothing spent.
      const refused = async (text: string, why: RegExp) => {
        await given.fill(text);
        await page.getByRole('button', { name: 'Refund', exact: true }).click();
        await page.locator('#refund-lockup-error:not(:empty)').waitFor();
        assert.match((await page.locator('#refund-lockup-error').textContent())!, why);
        assert.equal(await page.locator('#refund-tx-line').isHidden(), true, 'no refund');
        assert.notEqual(await service.node.getTxOut(lockupTxid, vout, true), null, 'the lockup is unspent');
      };
      await refused('not a transaction', /^That is neither a transaction id \(64 hex characters\) nor a whole transaction in hex\.$/);
      await refused('00'.repeat(40), /^That is not a BTC \(Bitcoin\) transaction the page can read/);
      await refused(otherHex, new RegExp(`^That transaction does not pay swap ${left.id}: none of its outputs goes to the swap's lockup address\\. Nothing was refunded\\.$`));
      const unknown = 'ab'.repeat(32);
      await refused(unknown, new RegExp(`^Ferry's BTC \\(Bitcoin\\) node knows no transaction ${unknown}: check the id`));
      await shot(page, 'desktop-btc-16-refund-lockup-refused');
      await accessible(page, 'the refund view, a lockup transaction refused');

      // The lockup's id: read through Ferry, its output paying the swap taken, refunded together with Ferry.
      await given.fill(lockupTxid);
      const balanceBefore = await service.userBalance();
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      const { said, witness } = await checkRefund(page, lockup, destination);
      assert.match(said, /together with Ferry/);
      assert.equal(witness.length, 1, 'the key path: Ferry co-signed the refund of a lockup it never saw');
      const fee = BigInt(said.match(/network fee ([\d,]+) sat/)![1].replace(/\D/g, ''));
      assert.equal((await service.userBalance()) - balanceBefore, lockup.value - fee, 'the refund address received the lockup less the fee');
      assert.match((await listed.textContent())!, /refunded in transaction [0-9a-f]{64}$/);
      assert.equal(await given.isVisible(), false, 'nothing more to give');
      await shot(page, 'desktop-btc-17-refund-lockup-refunded');
      assert.deepEqual(problems.filter((problem) => !/Failed to load resource/.test(problem)), [], 'the page ran without errors');
    } finally {
      await close();
    }
  });

  test('keyboard only: the refund view reached, filled and answered by keys; axe-core finds nothing serious', async () => {
    const { page, problems, close } = await open(DESKTOP);
    const focused = () => page.evaluate(`(() => { const e = document.activeElement; return e.id || e.getAttribute('name') || e.textContent.trim(); })()`);
    try {
      // From the choice: the last control of the start view is the refund button.
      await page.getByRole('button', { name: 'Continue' }).focus();
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'Refund a swap');
      await page.keyboard.press('Enter');
      assert.equal(await focused(), 'refund-title', 'the refund view is announced from its heading');
      await accessible(page, 'the refund view');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'refund-file');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'refund-rescue');
      await page.keyboard.type('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'refund-find');
      await page.keyboard.press('Enter');
      await page.locator('#refund-find-error:not(:empty)').waitFor();
      assert.equal(await page.locator('#refund-find-error').textContent(), 'Those words are not a rescue key: check each word and their order.');
      await accessible(page, 'the refund view, words refused');
      assert.deepEqual(problems, [], 'the page ran without errors');
    } finally {
      await close();
    }
  });
});
