// The refund view on failed chain swaps with an RBTC side, used as a person would, in headless Chromium against a
// devnet Ferry, with support.ts's injected EIP-1193 wallet (anvil answers for one of its unlocked accounts). Each swap
// is created in one browser, which is closed before anything is sent, so no page follows or refunds it; the coins
// then go out of Node as the user's wallets would send them, in an amount Ferry refuses (the swap fails with
// transaction.lockupFailed). A fresh browser profile (nothing of the swap in its storage) refunds it from the refund
// view. RBTC → BTC: the wallet finds the account's lock in the EtherSwap contract, Ferry's restore by address names
// its chain swap, and the wallet refunds it with Ferry's chain refund signature (GET /v2/swap/chain/{id}/refund); with
// the restore proof refused, by the signature asked by the lock's preimage hash; with Ferry's signature cut, by
// `refund` once the timelock block is reached; and in the browser that made the swap (its own refund cut), whose
// history then lists it as refunded. BTC → RBTC: the BTC lockup is refunded from the downloaded refund file, and
// from the rescue key, to a typed address. Effects are checked in Node: the transaction the page names is the
// account's call of that function, the account got the locked value back less its gas, the contract's entry is gone;
// the BTC refund spends the lockup and pays the typed address the lockup less the fee the page shows.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Contract, Interface, JsonRpcProvider, getAddress, toQuantity } from 'ethers';
import type { BrowserContext, Browser, Page } from 'playwright-core';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { parseRefundFile } from '@ferry/sdk/client/index.js';
import type { Service } from '../client/support.ts';
import { startRbtcWorld, stopRbtcWorld, type RbtcWorld } from './rbtc-world.ts';
import { walletRefundSent } from './wallet-refund.ts';
import { chromiumPath } from '../browser/page.ts';
import { DESKTOP, PHONE, injectEvmWallet, openSwapPage, shot, type Opened, type Viewport } from './support.ts';

const found = chromiumPath();
const skip = 'skip' in found ? `no Chromium: ${found.skip}` : false;
/** What the refund transactions call: told apart by their data. */
const ETHER_SWAP = new Interface([
  'function lock(bytes32 preimageHash, address claimAddress, uint256 timelock) payable',
  'function refundCooperative(bytes32 preimageHash, uint256 amount, address claimAddress, uint256 timelock, uint8 v, bytes32 r, bytes32 s)',
  'function refund(bytes32 preimageHash, uint256 amount, address claimAddress, uint256 timelock)',
  'function swaps(bytes32) view returns (bool)',
  'function hashValues(bytes32,uint256,address,address,uint256) pure returns (bytes32)',
]);
/** Wei in an API unit (10^-8 RBTC). */
const WEI_PER_UNIT = 10n ** 10n;
const satOf = (text: string): number => Number(text.replace(/\D/g, ''));

/** An RBTC → BTC chain swap whose lock the account made of another amount than agreed. */
interface Locked {
  id: string;
  lockHash: string;
  preimageHash: string;
  value: bigint;
  claimAddress: string;
  timelock: number;
}

/** A BTC → RBTC chain swap left before its BTC was sent: what the page showed and gave. */
interface Left {
  id: string;
  address: string;
  toSend: number;
  refundFilePath: string;
  words: string;
}

describe('chain swaps with an RBTC side refunded from the refund view, in Chromium', { skip, timeout: 900_000 }, () => {
  let service: Service;
  let browser: Browser;
  let provider: JsonRpcProvider;
  let account: string;
  const asked: string[] = [];
  const files = mkdtempSync(join(tmpdir(), 'ferry-chain-refund-files-'));

  let world: RbtcWorld | undefined;
  before(async () => {
    world = await startRbtcWorld((found as { path: string }).path);
    ({ service, browser, provider, account } = world);
  });
  after(() => stopRbtcWorld(world));

  const walletOf = (refused: string[]) => (context: BrowserContext) => injectEvmWallet(context, { rpcUrl: service.info.evm.rpcUrl, account, asked, refused });
  const open = (viewport: Viewport, refused: string[] = []): Promise<Opened> => openSwapPage(browser, service.ferry.pageUrl!, viewport, walletOf(refused));
  const etherSwap = () => new Contract(getAddress(service.info.evm.contracts.etherSwap), ETHER_SWAP, provider);
  const stillLocked = async (locked: Locked): Promise<boolean> => {
    const key = (await etherSwap().getFunction('hashValues')(`0x${locked.preimageHash}`, locked.value, locked.claimAddress, account, locked.timelock)) as string;
    return (await etherSwap().getFunction('swaps')(key)) as boolean;
  };

  /** Returns once Ferry has refused the swap's lockup. */
  async function lockupFailed(id: string): Promise<void> {
    for (;;) {
      const { status } = (await (await fetch(`${service.apiUrl}/v2/swap/${id}`)).json()) as { status: string };
      if (status === 'transaction.lockupFailed') return;
      assert.ok(!/claimed|expired|refunded/.test(status), `the swap ended otherwise: ${status}`);
      await new Promise((done) => setTimeout(done, 200)); // the next look, not a ceiling
    }
  }

  /** Chain → chain, the pair, the amount, the one address typed, the rescue key saved, Create swap. Returns the words. */
  async function create(page: Page, pair: string, address: string): Promise<string> {
    await page.getByLabel('Chain → chain').check();
    await page.getByLabel('Chain', { exact: true }).selectOption({ label: pair });
    const field = page.locator('#amount');
    await field.fill('');
    await field.pressSequentially('100000');
    await page.locator('#amount-error:empty').waitFor();
    await page.getByRole('button', { name: 'Continue' }).click();
    const view = page.locator('#view-chain-addresses');
    await view.waitFor();
    await page.locator(pair.endsWith('RBTC') ? '#chain-refund-address' : '#chain-destination').fill(address);
    await view.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Save your rescue key first' }).waitFor();
    const words = (await page.locator('#rescue-words').textContent())!.trim();
    await page.getByLabel('I have saved my rescue key').check();
    await page.getByRole('button', { name: 'Create swap' }).click();
    return words;
  }

  /**
   * RBTC → BTC created in a browser closed before the lock; the account then locks 1 000 sat less than the call the
   * page showed (from Node, as another wallet app would), and Ferry refuses it.
   */
  async function lockWrongAndLeave(): Promise<Locked> {
    const opened = await open(DESKTOP);
    let call: string;
    let id: string;
    try {
      await create(opened.page, 'RBTC → BTC', await service.user.getNewAddress());
      await opened.page.getByRole('heading', { name: 'Lock the coins with your wallet' }).waitFor();
      call = (await opened.page.locator('#contract-call').textContent())!;
      id = (await opened.page.locator('#swap-id').textContent())!.trim();
      assert.deepEqual(opened.problems, [], 'the page ran without errors');
    } finally {
      await opened.close();
    }
    return lockWrong(id, call);
  }

  /** The account locks 1 000 sat less than the call `call` the page showed for swap `id`; returns once Ferry refused it. */
  async function lockWrong(id: string, call: string): Promise<Locked> {
    const [, preimageHash, claimAddress, timelock, agreed] = /^lock\(preimageHash 0x([0-9a-f]{64}), claimAddress (0x[0-9a-fA-F]{40}), timelock (\d+)\) with value (\d+) wei$/.exec(call)!;
    const value = BigInt(agreed) - 1_000n * WEI_PER_UNIT;
    const sent = await etherSwap()
      .connect(await provider.getSigner(account))
      .getFunction('lock')(`0x${preimageHash}`, claimAddress, Number(timelock), { value });
    const lockHash = (await sent.wait())!.hash;
    const locked: Locked = { id, lockHash, preimageHash, value, claimAddress, timelock: Number(timelock) };
    assert.equal(await stillLocked(locked), true, 'the account locked the wrong amount');
    await lockupFailed(id);
    return locked;
  }

  /** The refund view, its RBTC lockups found through the wallet: the one line listed. */
  async function findWithWallet(page: Page, locked: Locked, nameless = false): Promise<void> {
    await page.getByRole('button', { name: 'Refund a swap' }).first().click();
    await page.getByRole('button', { name: 'Find my RBTC swaps with my wallet' }).click();
    const listed = page.locator('#refund-swaps label');
    await listed.first().waitFor();
    assert.equal(await listed.count(), 1, 'the one lock of the account still in the contract');
    const amount = (Number(locked.value) / 1e18).toFixed(8);
    const line = nameless
      ? `Lockup ${locked.lockHash} · RBTC (Rootstock, with your Ethereum wallet) · ${amount} RBTC locked · Ferry names no swap of it`
      : `Swap ${locked.id} · RBTC (Rootstock, with your Ethereum wallet) · ${amount} RBTC locked · the coins sent did not match the swap`;
    assert.equal((await listed.textContent())!.trim(), line);
    assert.equal(await page.locator('#refund-to').isHidden(), true, 'no address to type: the refund goes to the account');
  }

  /** The refund the page names: the account's call of `method`, the value back less its gas, the entry gone. */
  async function checkWalletRefund(page: Page, locked: Locked, method: 'refundCooperative' | 'refund', balanceBefore: bigint): Promise<void> {
    const { said, txHash } = await walletRefundSent(world!, page, locked, method, balanceBefore);
    assert.equal(await stillLocked(locked), false, 'the contract’s swap entry is gone');
    assert.match(said, new RegExp(`^Refunded ${(Number(locked.value) / 1e18).toFixed(8)} RBTC to your wallet's account ${account} \\(gas `));
    assert.match((await page.locator('#refund-swaps label').textContent())!, new RegExp(`refunded in transaction ${txHash}$`));
  }

  /** The signature requests the page makes, by path. */
  const signatureRequests = (page: Page): string[] => {
    const seen: string[] = [];
    page.on('request', (request) => void (/\/v2\/swap\/(submarine|chain)\/[^/]+\/refund$/.test(request.url()) && seen.push(new URL(request.url()).pathname)));
    return seen;
  };

  test('a failed RBTC → BTC chain swap refunded in a fresh browser through the wallet, with Ferry’s chain refund signature', async () => {
    const locked = await lockWrongAndLeave();
    const { page, problems, close } = await open(DESKTOP);
    try {
      assert.equal(await page.locator('#history-list li').count(), 0, 'this browser has no record of the swap');
      asked.length = 0;
      await findWithWallet(page, locked);
      assert.ok(asked.includes('personal_sign'), `the wallet was asked for the restore proof: ${asked.join(', ')}`);
      await shot(page, 'rbtc-11-refund-chain-found');
      const signatures = signatureRequests(page);
      const before = await provider.getBalance(account);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await checkWalletRefund(page, locked, 'refundCooperative', before);
      assert.deepEqual(signatures, [`/v2/swap/chain/${locked.id}/refund`], 'Ferry’s signature of the chain swap');
      await shot(page, 'rbtc-12-refund-chain-refunded');
      assert.deepEqual(problems, [], 'the page ran without errors');
    } finally {
      await close();
    }
  });

  test('the restore proof refused: the lock is refunded with Ferry’s signature asked by its preimage hash', async () => {
    const locked = await lockWrongAndLeave();
    const { page, problems, close } = await open(DESKTOP, ['personal_sign']);
    try {
      await findWithWallet(page, locked, true);
      const signatures = signatureRequests(page);
      const before = await provider.getBalance(account);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await checkWalletRefund(page, locked, 'refundCooperative', before);
      assert.deepEqual(
        signatures,
        [`/v2/swap/submarine/${locked.preimageHash}/refund`, `/v2/swap/chain/${locked.preimageHash}/refund`],
        'no submarine swap of the hash: the chain swap’s signature, by the hash',
      );
      // The submarine ask's 404 is the one error the browser reports.
      assert.ok(problems.every((problem) => /Failed to load resource/.test(problem)), problems.join('\n'));
    } finally {
      await close();
    }
  });

  test('with Ferry’s chain refund signature cut, the page says how many blocks remain; after the timelock the wallet refunds alone', async () => {
    const locked = await lockWrongAndLeave();
    const { page, problems, close } = await open(PHONE);
    try {
      await page.route('**/v2/swap/chain/*/refund', (route) => route.abort('connectionrefused'));
      await findWithWallet(page, locked);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await page.locator('#refund-result.bad').waitFor();
      const blocks = locked.timelock - 1 - (await provider.getBlockNumber());
      assert.ok(blocks > 1, `the timelock is ahead: ${blocks} blocks`);
      assert.match((await page.locator('#refund-result').textContent())!, new RegExp(`^Ferry did not sign a refund now .*once block ${locked.timelock - 1} is mined: ${blocks} more blocks from now`));
      assert.equal(await stillLocked(locked), true, 'nothing refunded');
      await provider.send('anvil_mine', [toQuantity(blocks)]);
      const before = await provider.getBalance(account);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await checkWalletRefund(page, locked, 'refund', before);
      assert.ok(problems.every((problem) => /ERR_CONNECTION_REFUSED|Failed to load resource/.test(problem)), problems.join('\n'));
    } finally {
      await close();
    }
  });

  test('in the browser that made the swap, its own refund cut: the refund view refunds the lock, the history says so', async () => {
    const { page, problems, close } = await open(DESKTOP);
    try {
      await page.route('**/v2/swap/chain/*/refund', (route) => route.abort('connectionrefused'));
      await create(page, 'RBTC → BTC', await service.user.getNewAddress());
      await page.getByRole('heading', { name: 'Lock the coins with your wallet' }).waitFor();
      const id = (await page.locator('#swap-id').textContent())!.trim();
      const locked = await lockWrong(id, (await page.locator('#contract-call').textContent())!);
      // The page's follower could not refund (Ferry's signature cut, the timelock ahead) and ended: the lock stays.
      await page.locator('#view-done:not([hidden])').waitFor();
      const entry = page.locator('#history-list li', { hasText: id });
      await entry.filter({ hasText: 'transaction.lockupFailed' }).waitFor();
      assert.equal(await stillLocked(locked), true, 'nothing refunded yet');

      await page.unroute('**/v2/swap/chain/*/refund');
      await findWithWallet(page, locked);
      const before = await provider.getBalance(account);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await checkWalletRefund(page, locked, 'refundCooperative', before);
      assert.match((await entry.textContent())!, /RBTC → BTC · [\d,]+ sat · transaction\.lockupFailed, refunded · /);
      await page.reload();
      await page.locator('body[data-ready="true"]').waitFor();
      assert.match((await entry.textContent())!, /transaction\.lockupFailed, refunded · /);
      assert.equal(await entry.getByRole('button').count(), 0, 'nothing left to resume');
      assert.ok(problems.every((problem) => /ERR_CONNECTION_REFUSED|Failed to load resource/.test(problem)), problems.join('\n'));
    } finally {
      await close();
    }
  });

  /** BTC → RBTC created in a browser closed once the rescue key was read and the refund file downloaded. */
  async function startBtcAndLeave(): Promise<Left> {
    const { page, problems, close } = await open(DESKTOP);
    try {
      const words = await create(page, 'BTC → RBTC', await service.user.getNewAddress());
      await page.getByRole('heading', { name: 'Send the coins' }).waitFor();
      const address = (await page.locator('#address-text').textContent())!.trim();
      const toSend = satOf((await page.locator('#pay-chain-amount').textContent())!.replace(/ sat.*$/, ''));
      const id = (await page.locator('#swap-id').textContent())!.trim();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download refund file' }).click()]);
      const refundFilePath = join(files, download.suggestedFilename());
      await download.saveAs(refundFilePath);
      const file = parseRefundFile(JSON.parse(readFileSync(refundFilePath, 'utf8')));
      assert.deepEqual([file.id, file.type, file.currency], [id, 'chain', 'BTC']);
      assert.deepEqual(problems, [], 'the page ran without errors');
      return { id, address, toSend, refundFilePath, words };
    } finally {
      await close();
    }
  }

  /** Sends 10 000 sat less than asked to the lockup address; returns the lockup output once Ferry refused it. */
  async function underpay(left: Left): Promise<{ lockupTxid: string; vout: number; value: bigint }> {
    const lockupTxid = await service.user.sendToAddress(left.address, satToBtc(left.toSend - 10_000));
    await service.mine();
    await lockupFailed(left.id);
    const lockup = await service.node.getRawTransaction(lockupTxid);
    const output = lockup.vout.find((o) => o.scriptPubKey.address === left.address)!;
    return { lockupTxid, vout: output.n, value: BigInt(Math.round(output.value * 1e8)) };
  }

  /** Refunds the one swap listed to a new address of the user wallet; checks the refund spends the lockup. */
  async function refundBtc(page: Page, left: Left, lockup: { lockupTxid: string; vout: number; value: bigint }, shotName?: string): Promise<void> {
    const listed = page.locator('#refund-swaps label');
    await listed.first().waitFor();
    assert.equal(await listed.count(), 1);
    assert.equal((await listed.textContent())!.trim(), `Swap ${left.id} · BTC (Bitcoin) · ${Number(lockup.value).toLocaleString('en-US')} sat locked · the coins sent did not match the swap`);
    const destination = await service.user.getNewAddress();
    await page.getByLabel(/Your BTC \(Bitcoin\) address for the refund \(regtest\)/).fill(destination);
    if (shotName !== undefined) await shot(page, shotName);
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.locator('#refund-tx-line:not([hidden]), #refund-result.bad').first().waitFor();
    const said = (await page.locator('#refund-result').textContent())!;
    assert.equal(await page.locator('#refund-tx-line').isVisible(), true, `the page refunded: ${said}`);
    assert.match(said, /together with Ferry/);
    const [, amountText, feeText] = /^Refunded ([\d,]+) sat to .* \(network fee ([\d,]+) sat\)/.exec(said)!;
    const txid = (await page.locator('#refund-txid').textContent())!.trim();
    await service.mine();
    const refund = await service.node.getRawTransaction(txid);
    assert.ok((refund.confirmations ?? 0) >= 1, 'the refund confirmed');
    assert.deepEqual(
      refund.vin.map((input) => [input.txid, input.vout, (input.txinwitness ?? []).length]),
      [[lockup.lockupTxid, lockup.vout, 1]],
      'it spends the lockup output through the key path (Ferry and the page together)',
    );
    assert.equal(await service.node.getTxOut(lockup.lockupTxid, lockup.vout, true), null, 'the lockup is spent');
    assert.equal(refund.vout.length, 1);
    assert.equal(refund.vout[0].scriptPubKey.address, destination, 'it pays the typed address');
    assert.equal(BigInt(Math.round(refund.vout[0].value * 1e8)), BigInt(satOf(amountText)), 'the amount the page shows');
    assert.equal(BigInt(satOf(amountText) + satOf(feeText)), lockup.value, 'the lockup less the fee the page shows');
    assert.match((await listed.textContent())!, new RegExp(`refunded in transaction ${txid}$`));
  }

  test('a failed BTC → RBTC chain swap refunded from its downloaded refund file in a fresh browser, together with Ferry', async () => {
    const left = await startBtcAndLeave();
    const lockup = await underpay(left);
    const { page, problems, close } = await open(DESKTOP);
    try {
      assert.equal(await page.locator('#history-list li').count(), 0, 'this browser has no record of the swap');
      await page.locator('#view-choose').getByRole('button', { name: 'Refund a swap' }).click();
      await page.getByLabel('Refund file (JSON or PNG), or rescue key file').setInputFiles(left.refundFilePath);
      await page.getByRole('button', { name: 'Find my swap' }).click();
      await refundBtc(page, left, lockup, 'rbtc-13-refund-chain-btc-found');
      assert.deepEqual(problems, [], 'the page ran without errors');
    } finally {
      await close();
    }
  });

  test('a failed BTC → RBTC chain swap found by the rescue key and refunded, together with Ferry', async () => {
    const left = await startBtcAndLeave();
    const lockup = await underpay(left);
    const { page, problems, close } = await open(PHONE);
    try {
      await page.locator('#view-choose').getByRole('button', { name: 'Refund a swap' }).click();
      await page.getByLabel('Or your rescue key (the twelve words)').fill(left.words);
      await page.getByRole('button', { name: 'Find my swap' }).click();
      await refundBtc(page, left, lockup);
      assert.deepEqual(problems, [], 'the page ran without errors');
    } finally {
      await close();
    }
  });
});
