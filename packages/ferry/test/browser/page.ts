// A page in headless Chromium (Debian's package, driven by playwright-core) served from its own origin on loopback,
// so that every call it makes to Ferry is cross-origin, as a wallet's web app's are. The page's errors and console
// are kept: when the SDK fails in the browser, the test says what the page said.
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Chromium's path, or why there is none: prepared by scripts/test.mjs (FERRY_BROWSER), else by running
 * scripts/chromium.mjs here (a test file run on its own).
 */
export function chromiumPath(): { path: string } | { skip: string } {
  let line = process.env.FERRY_BROWSER;
  if (line === undefined) {
    const prepared = spawnSync(process.execPath, ['scripts/chromium.mjs'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    line = (prepared.stdout ?? '').trim().split('\n').at(-1) ?? '';
    if (prepared.status !== 0) throw new Error(`scripts/chromium.mjs failed (${prepared.status}): ${line}`);
  }
  if (line.startsWith('skip=')) return { skip: line.slice('skip='.length) };
  return { path: line.replace(/^chromium=/, '') };
}

// launch() gives each browser a fresh profile directory of its own (and removes it): playwright refuses
// --user-data-dir here. Without the background-networking flags Chromium keeps trying Google's hosts, which this closed network refuses.
export const BROWSER_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserPage {
  page: Page;
  origin: string;
  /** Uncaught errors and console errors the page produced, in order. */
  problems: string[];
  /** Every URL the page requested (its files, Ferry's API), in order: what it downloaded, and when. */
  requests: string[];
  /**
   * Resolves once `globalThis[flag]` is true (the page's module script ran to its end); rejects with the page's
   * error if it throws first: a module that fails to load never sets the flag, and no timeout is the judge of that.
   */
  ready(flag: string): Promise<void>;
  close(): Promise<void>;
}

/** Serves `files` (path → [content type, body]) at a loopback origin and opens `/` in a fresh Chromium profile. */
export async function openPage(executablePath: string, files: Record<string, [string, string | Uint8Array]>): Promise<BrowserPage> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname;
    const file = files[path];
    if (file === undefined) {
      // The browser asks for an icon by itself: no error to report for that.
      if (path === '/favicon.ico') return void response.writeHead(204).end();
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // localhost, not 127.0.0.1: another host as well as another port than the API's, cross-origin beyond doubt
  const origin = `http://localhost:${(server.address() as { port: number }).port}`;
  let browser: Browser | undefined;
  try {
    // No ceilings of playwright's own (30 s, 180 s): on a busy machine the test file's hang guard is the judge.
    browser = await chromium.launch({ executablePath, headless: true, args: BROWSER_FLAGS, timeout: 0 });
    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('request', (request) => void requests.push(request.url()));
    let failed!: (error: Error) => void;
    const firstError = new Promise<never>((_resolve, reject) => (failed = reject));
    firstError.catch(() => undefined); // read by ready() only
    page.on('pageerror', (error) => {
      problems.push(`page error: ${error.stack ?? error.message}`);
      failed(new Error(`the page failed: ${error.stack ?? error.message}`));
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    await page.goto(origin + '/', { timeout: 0 });
    const opened = browser;
    return {
      page,
      origin,
      problems,
      requests,
      async ready(flag: string) {
        await Promise.race([page.waitForFunction((name) => (globalThis as Record<string, unknown>)[name] === true, flag, { timeout: 0 }), firstError]);
      },
      async close() {
        await opened.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
      },
    };
  } catch (error) {
    await browser?.close();
    server.close();
    throw error;
  }
}
