// What the swap page's Chromium tests share: Chromium started as the page tests start it, a fresh browser profile on
// Ferry's page at a viewport (its errors collected), an Ethereum wallet injected into it as an extension would,
// screenshots (to a temporary directory, or to docs/page/ with FERRY_PAGE_SCREENSHOTS=1), the page's progress steps as
// text, and an invoice Ferry cannot pay (for a submarine swap that fails after the lockup).
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { BROWSER_FLAGS } from '../browser/page.ts';
import type { Service } from '../client/support.ts';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };
export type Viewport = typeof DESKTOP;

export const SHOTS = process.env.FERRY_PAGE_SCREENSHOTS === '1' ? resolve('../../docs/page') : mkdtempSync(join(tmpdir(), 'ferry-page-shots-'));

/** Debian's Chromium, headless, with no ceiling of playwright's own: the test file's hang guard judges. */
export async function launchChromium(executablePath: string): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({ executablePath, headless: true, args: BROWSER_FLAGS, timeout: 0 });
}

export interface Opened {
  page: Page;
  /** Uncaught errors and console errors of the page, in order. */
  problems: string[];
  /** Every response the page received, with the bytes that came over the wire (Chromium's network events). */
  received: { url: string; bytes: number }[];
  close(): Promise<void>;
}

/**
 * A fresh profile at a viewport, on the page at `url`, once its script says it is ready; `prepare` runs on the
 * profile before the page opens (what a browser extension would put into the page, for one).
 */
export async function openSwapPage(browser: Browser, url: string, viewport: Viewport, prepare?: (context: BrowserContext) => Promise<void>): Promise<Opened> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  await prepare?.(context);
  context.setDefaultTimeout(0); // the test's hang guard judges; the page's errors are collected and checked
  const page = await context.newPage();
  const problems: string[] = [];
  const cut = (text: string) => (text.length > 400 ? `${text.slice(0, 400)}…` : text);
  page.on('pageerror', (error) => problems.push(cut(`page error: ${error.stack ?? error.message}`)));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(cut(`console: ${message.text()}`));
  });
  // What came over the wire, per request: the encoded (gzip) body and the headers, as Chromium counts them.
  const received: { url: string; bytes: number }[] = [];
  const urls = new Map<string, string>();
  const network = await context.newCDPSession(page);
  network.on('Network.responseReceived', (event) => void urls.set(event.requestId, event.response.url));
  network.on('Network.loadingFinished', (event) => void received.push({ url: urls.get(event.requestId) ?? '?', bytes: event.encodedDataLength }));
  await network.send('Network.enable');
  await page.goto(url);
  await page.locator('body[data-ready="true"]').waitFor();
  return { page, problems, received, close: () => context.close() };
}

/** A full-page screenshot named `name`.png in SHOTS. */
export const shot = async (page: Page, name: string): Promise<void> => void (await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true }));

/** The page's progress steps, one a line. */
export const steps = async (page: Page): Promise<string> => (await page.locator('#steps li').allTextContents()).join('\n  ');

/**
 * Puts an Ethereum wallet into every page of the profile, as an extension injects one: window.ethereum (EIP-1193),
 * each request forwarded to the node at `rpcUrl` (the devnet's anvil), where `account` is unlocked, so the node signs
 * what the wallet would. As a wallet does, no account is shown until the page asks (eth_requestAccounts). The methods
 * asked for are pushed to `asked`, in order; those in `refused` the user refuses (EIP-1193's 4001).
 */
export async function injectEvmWallet(context: BrowserContext, wallet: { rpcUrl: string; account: string; asked: string[]; refused?: string[] }): Promise<void> {
  const { rpcUrl, account, asked, refused = [] } = wallet;
  let connected = false;
  await context.exposeFunction('ferryTestWallet', async ({ method, params }: { method: string; params?: unknown[] }) => {
    asked.push(method);
    if (refused.includes(method)) return { error: { code: 4001, message: 'User rejected the request.' } };
    if (method === 'eth_requestAccounts') connected = true;
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return { result: connected ? [account.toLowerCase()] : [] };
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: asked.length, method, params: params ?? [] }),
    });
    return (await response.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
  });
  // A string, not a function: the test's compiler adds helpers to functions that the page would not have.
  await context.addInitScript(`
    window.ethereum = {
      async request({ method, params }) {
        const answer = await window.ferryTestWallet({ method, params });
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code, data: answer.error.data });
        return answer.result;
      },
      on() {},
      removeListener() {},
    };
  `);
}

/** An invoice of alice's for more than Ferry's channel to her holds: Ferry's payment of it fails after the lockup. */
export async function unpayableInvoice(service: Service): Promise<{ invoice: string; paymentHash: string; sat: number }> {
  // Read from alice's side, so it holds whichever kind of node Ferry runs on: Ferry's balance is her channel's remote one.
  const { alice } = service.info.lightning;
  const ferryPubkey = (await service.ferryNode.getInfo()).publicKey;
  const response = await fetch(`${alice.restUrl}/v1/channels`, { headers: { 'Grpc-Metadata-macaroon': alice.macaroon } });
  const { channels } = (await response.json()) as { channels: { remote_pubkey: string; remote_balance: string }[] };
  const toFerry = channels.find((channel) => channel.remote_pubkey === ferryPubkey)!;
  const sat = Number(toFerry.remote_balance) + 100_000;
  return { ...(await service.invoice('alice', sat)), sat };
}
