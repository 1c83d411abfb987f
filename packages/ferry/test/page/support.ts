// What the swap page's Chromium tests share: Chromium started as the page tests start it, a fresh browser profile on
// Ferry's page at a viewport (its errors collected), screenshots (to a temporary directory, or to docs/page/ with
// FERRY_PAGE_SCREENSHOTS=1), and the page's progress steps as text.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { BROWSER_FLAGS } from '../browser/page.ts';

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
