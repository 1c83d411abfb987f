// Chain → chain swaps with an RBTC side on the page Ferry serves, used as a person would, through a browser Ethereum
// wallet (support.ts's injectEvmWallet: window.ethereum forwarding to the devnet's anvil, an unlocked dev account as the
// wallet's account). BTC → RBTC: the page asks the wallet for its account and only a BTC refund address is typed; the
// devnet's user wallet funds the lockup shown, the wallet claims Ferry's lock (the account's balance rises by what
// Ferry locked less the claim's gas) and Ferry's claim spends the BTC lockup. RBTC → BTC: only a BTC address is
// typed; the page reloaded, the swap is resumed from the history, the wallet locks from the contract call shown, the
// page claims Ferry's BTC lockup to the address typed, and Ferry takes the lock out of the contract. Screenshots go to
// docs/page/ with FERRY_PAGE_SCREENSHOTS=1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonRpcProvider, getAddress } from 'ethers';
import type { Browser } from 'playwright-core';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { swapChain, type ContractChainRecord } from '@ferry/sdk/client/index.js';
import type { Service } from '../client/support.ts';
import { startRbtcWorld, stopRbtcWorld, type RbtcWorld } from './rbtc-world.ts';
import { chromiumPath } from '../browser/page.ts';
import { DESKTOP, injectEvmWallet, openSwapPage, shot, steps, type Opened } from './support.ts';

const found = chromiumPath();
const skip = 'skip' in found ? `no Chromium: ${found.skip}` : false;
/** Wei in an API unit (10^-8 RBTC). */
const WEI_PER_UNIT = 10n ** 10n;
const satOf = (text: string): number => Number(text.replace(/\D/g, ''));

describe('chain swaps with an RBTC side on the swap page, through an injected Ethereum wallet, in Chromium', { skip, timeout: 900_000 }, () => {
  let service: Service;
  let browser: Browser;
  let provider: JsonRpcProvider;
  let account: string;
  const asked: string[] = [];

  let world: RbtcWorld | undefined;
  before(async () => {
    world = await startRbtcWorld((found as { path: string }).path);
    ({ service, browser, provider, account } = world);
  });
  after(() => stopRbtcWorld(world));

  const open = (): Promise<Opened> => openSwapPage(browser, service.ferry.pageUrl!, DESKTOP, (context) => injectEvmWallet(context, { rpcUrl: service.info.evm.rpcUrl, account, asked }));
  const etherSwap = () => getAddress(service.info.evm.contracts.etherSwap);

  /** Chain → chain, the pair, the amount, Continue: the wallet is asked for its account, then the one address typed. */
  async function choose(opened: Opened, pair: string, amount: number, address: string, shotName: string): Promise<void> {
    const { page } = opened;
    await page.getByLabel('Chain → chain').check();
    const offered = await page.getByLabel('Chain', { exact: true }).locator('option').allTextContents();
    assert.ok(offered.includes('BTC → RBTC') && offered.includes('RBTC → BTC'), `the RBTC chain pairs are offered: ${offered.join(', ')}`);
    await page.getByLabel('Chain', { exact: true }).selectOption({ label: pair });
    const field = page.locator('#amount');
    await field.fill('');
    await field.pressSequentially(String(amount));
    await page.locator('#amount-error:empty').waitFor();
    asked.length = 0;
    await page.getByRole('button', { name: 'Continue' }).click();
    const view = page.locator('#view-chain-addresses');
    await view.waitFor();
    assert.ok(asked.includes('eth_requestAccounts'), `the page asked the wallet for its account: ${asked.join(', ')}`);
    assert.match((await page.locator('#chain-addresses-title').textContent())!, new RegExp(account));
    const toRbtc = pair.endsWith('RBTC');
    assert.equal(await page.locator(toRbtc ? '#chain-destination' : '#chain-refund-address').isVisible(), false, 'the RBTC side is the wallet’s account: nothing to type');
    await page.locator(toRbtc ? '#chain-refund-address' : '#chain-destination').fill(address);
    await shot(page, shotName);
    await view.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Save your rescue key first' }).waitFor();
    await page.getByLabel('I have saved my rescue key').check();
    await page.getByRole('button', { name: 'Create swap' }).click();
  }

  /** The page's stored record of the swap it shows. */
  async function storedRecord(opened: Opened): Promise<ContractChainRecord> {
    const id = (await opened.page.locator('#swap-id').textContent())!.trim();
    const text = await opened.page.evaluate((key) => localStorage.getItem(key), `ferry-page/contract-chain-swaps/${id}.json`);
    assert.ok(text, `swap ${id} is stored in the browser`);
    return JSON.parse(text) as ContractChainRecord;
  }

  /** Ferry's claim of the user's lock, once it has made one. */
  async function ferryClaim(id: string): Promise<string> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const txid = ((await service.ferry.storage.swaps.get(id))?.data as { claimTransaction?: { txid: string } }).claimTransaction?.txid;
      if (txid !== undefined) return txid;
      if (Date.now() > deadline) throw new Error(`Ferry never claimed swap ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  test('BTC → RBTC: the BTC lockup shown is funded, the wallet claims Ferry’s lock, Ferry’s claim spends the BTC', async () => {
    const opened = await open();
    const { page } = opened;
    try {
      const refundAddress = await service.user.getNewAddress();
      await choose(opened, 'BTC → RBTC', 100_000, refundAddress, 'rbtc-5-chain-btc-addresses');
      await page.getByRole('heading', { name: 'Send the coins' }).waitFor();
      const address = (await page.locator('#address-text').textContent())!.trim();
      assert.equal(satOf((await page.locator('#pay-chain-amount').textContent())!.replace(/ sat.*$/, '')), 100_000);
      assert.match((await page.locator('#pay-chain-then').textContent())!, new RegExp(`which your wallet claims to ${account}`));
      await shot(page, 'rbtc-6-chain-btc-send');
      const record = await storedRecord(opened);
      assert.equal(record.utxoSide.lockupAddress, address);

      const before = await provider.getBalance(account);
      const lockupTxid = await service.user.sendToAddress(address, satToBtc(100_000));
      await service.mine();

      await page.locator('#view-done:not([hidden])').waitFor();
      const title = (await page.locator('#done-title').textContent())!;
      assert.equal(title, `Received ${(record.serverLockAmount / 1e8).toFixed(8)} RBTC`, `the page ended with: ${title} ${await page.locator('#done-text').textContent()}\n  ${await steps(page)}`);
      assert.match(await steps(page), /co-signed Ferry's claim/);
      await shot(page, 'rbtc-7-chain-btc-done');

      // Effects: the wallet's claim of exactly what Ferry agreed to lock, less its gas; Ferry's claim spent our BTC.
      const receipt = (await provider.getTransactionReceipt((await page.locator('#done-txid').textContent())!.trim()))!;
      assert.equal(receipt.status, 1);
      assert.equal(getAddress(receipt.from), account, 'sent from the wallet’s account');
      assert.equal(getAddress(receipt.to!), etherSwap());
      assert.equal(await provider.getBalance(account), before + BigInt(record.serverLockAmount) * WEI_PER_UNIT - receipt.gasUsed * receipt.gasPrice);
      const theirs = await service.node.getRawTransaction(await ferryClaim(record.id));
      assert.deepEqual(
        theirs.vin.map((input) => [input.txid, (input.txinwitness ?? []).length]),
        [[lockupTxid, 1]],
        "Ferry's claim spends the user's BTC lockup through the key path (the page's signature)",
      );
      assert.match((await page.locator('#history-list').textContent())!, /BTC → RBTC · 100,000 sat · transaction\.claimed/);
      assert.deepEqual(opened.problems, [], 'the page ran without errors');
    } finally {
      await opened.close();
    }
  });

  test('RBTC → BTC: the wallet locks from the call shown, the page claims Ferry’s BTC to the address typed, Ferry takes the lock', async () => {
    const opened = await open();
    const { page } = opened;
    try {
      const destination = await service.user.getNewAddress();
      await choose(opened, 'RBTC → BTC', 100_000, destination, 'rbtc-8-chain-rbtc-addresses');
      await page.getByRole('heading', { name: 'Lock the coins with your wallet' }).waitFor();
      const record = await storedRecord(opened);
      assert.equal(getAddress((await page.locator('#contract-address').textContent())!.trim()), etherSwap());
      assert.equal(getAddress((await page.locator('#contract-from').textContent())!.trim()), account);
      const call = (await page.locator('#contract-call').textContent())!;
      const value = BigInt(record.userLockAmount) * WEI_PER_UNIT;
      assert.equal(call, `lock(preimageHash 0x${record.preimageHash}, claimAddress ${record.contractSide.contract.serviceAddress}, timelock ${record.contractSide.timeoutBlockHeight}) with value ${value} wei`);
      assert.match((await page.locator('#contract-then').textContent())!, new RegExp(`claims to ${destination}`));
      await shot(page, 'rbtc-9-chain-rbtc-lock');
      // The tab reloads before the lock: the swap is in the history, and Resume (the wallet asked again) shows the same lock.
      await page.reload();
      await page.locator('body[data-ready="true"]').waitFor();
      assert.match((await page.locator('#history-list').textContent())!, /RBTC → BTC · 100,000 sat · swap\.created \(open\)/);
      await page.getByRole('button', { name: `Resume swap ${record.id}` }).click();
      await page.getByRole('heading', { name: 'Lock the coins with your wallet' }).waitFor();
      assert.equal((await page.locator('#contract-call').textContent())!, call, 'the same lock after the reload');
      assert.match(await steps(page), /Resumed from this browser's storage/);

      const before = await provider.getBalance(account);
      await page.getByRole('button', { name: 'Lock with your wallet' }).click();
      await page.locator('#view-done:not([hidden])').waitFor();
      const title = (await page.locator('#done-title').textContent())!;
      assert.match(title, /^Received [\d,]+ sat$/, `the page ended with: ${title} ${await page.locator('#done-text').textContent()}\n  ${await steps(page)}`);
      await shot(page, 'rbtc-10-chain-rbtc-done');

      // Effects on Bitcoin: the page's claim spends Ferry's lockup and pays the address typed what the page says.
      const claimTxid = (await page.locator('#done-txid').textContent())!.trim();
      await service.mine();
      const claim = await service.node.getRawTransaction(claimTxid);
      assert.ok((claim.confirmations ?? 0) >= 1, 'the claim confirmed');
      const coin = (await service.user.listUnspent(1)).find((unspent) => unspent.txid === claimTxid);
      assert.ok(coin, 'the claim pays the user wallet');
      assert.equal(coin.scriptPubKey, Buffer.from(swapChain('BTC').decodeAddress(destination, 'regtest').script).toString('hex'), 'at the address typed');
      assert.equal(Math.round(coin.amount * 1e8), satOf(title));
      const [input] = claim.vin as { txid: string; vout: number }[];
      const serverLockup = await service.node.getRawTransaction(input.txid);
      assert.equal(Math.round(serverLockup.vout[input.vout].value * 1e8), record.serverLockAmount, 'Ferry’s lockup, of the agreed amount');

      // Effects on RBTC: the wallet paid the lock and its gas; Ferry's claim took the lock out of the contract.
      const stored = await storedRecord(opened);
      const lockReceipt = (await provider.getTransactionReceipt(stored.contractSide.lockup!.txHash))!;
      assert.equal(getAddress(lockReceipt.from), account);
      assert.equal(await provider.getBalance(account), before - value - lockReceipt.gasUsed * lockReceipt.gasPrice);
      const ferry = (await provider.getTransactionReceipt(await ferryClaim(record.id)))!;
      assert.equal(ferry.status, 1);
      assert.equal(getAddress(ferry.from), getAddress(record.contractSide.contract.serviceAddress), "Ferry's account claimed the lock");
      assert.deepEqual(opened.problems, [], 'the page ran without errors');
    } finally {
      await opened.close();
    }
  });
});
