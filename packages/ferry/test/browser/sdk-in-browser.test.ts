// The client SDK in a browser, for real: its core (src/client/index.ts) bundled by esbuild for the browser, loaded by a
// page in headless Chromium from another origin than Ferry's, against a devnet Ferry. From the page: a reverse and a
// submarine swap on BTC and on L-BTC — keys made, answers checked, claims signed, refund files drawn — while this side
// pays invoices and funds lockups from the devnet's wallets and checks the effects on the chains and on Lightning.
// Measured in the same run, beside boltz-core's: the bundle's minified and gzipped size — what the page loads with the
// SDK, what it loads on demand (secp256k1-zkp, for the first L-BTC swap; a page doing BTC never fetches it), and the
// total — and its packages' size on disk.
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { satToBtc } from '@ferry/sdk/chains/core-rpc.js';
import { parseRefundFile, parseRefundFileBytes, swapChain, type FollowEvent } from '@ferry/sdk/client/index.js';
import { startService, type Service } from '../client/support.ts';
import { BundleError, bundleForBrowser, kB, MB, type Bundle, type BundleFile } from './bundle.ts';
import { chromiumPath, openPage, type BrowserPage } from './page.ts';
import type { FerryPage } from './page/harness.ts';

const SDK_ENTRY = '../sdk/src/client/index.ts'; // the @ferry/sdk package's core
const BOLTZ_CORE_ENTRY = createRequire(import.meta.url).resolve('boltz-core'); // its package.json's main
const chromium = chromiumPath();
const skip = 'skip' in chromium ? `no Chromium: ${chromium.skip}` : false;

const ZKP = '@vulpemventures/secp256k1-zkp';

const page = (harness: string) => `<!doctype html>
<meta charset="utf-8">
<title>Ferry SDK in the browser</title>
<script type="module">
  import './${harness}';
  globalThis.ferryPageReady = true;
</script>`;

/** A bundle's files as the page's server serves them: under `dir`, beside each other, as they import each other. */
const served = (bundle: Bundle, dir: string): Record<string, [string, Uint8Array]> =>
  Object.fromEntries(bundle.files.map((file) => [`${dir}/${file.name}`, ['text/javascript', file.contents]]));

// A hang guard, not a timing: at load a swap's steps take seconds each, and nothing here waits on a clock.
describe('the client SDK in Chromium against a devnet Ferry', { skip, timeout: 1_200_000 }, () => {
  let sdk: Bundle;
  /** The SDK's chunk that holds secp256k1-zkp. */
  let zkpChunk: BundleFile;
  let boltzCore: Bundle;
  let service: Service;
  let browser: BrowserPage;
  /** The swaps the page made, by type: all of them should be in its localStorage. */
  const made: { id: string; type: string }[] = [];

  /** Calls the page's script (page/harness.ts) and says what the page said if it fails. */
  async function inPage<K extends keyof FerryPage>(name: K, ...args: Parameters<FerryPage[K]>): Promise<Awaited<ReturnType<FerryPage[K]>>> {
    const heard = browser.problems.length;
    try {
      return (await browser.page.evaluate(
        ([name, args]) => {
          const page = (globalThis as unknown as { ferryPage: Record<string, (...a: unknown[]) => unknown> }).ferryPage;
          return page[name as string](...(args as unknown[]));
        },
        [name, args] as const,
      )) as Awaited<ReturnType<FerryPage[K]>>;
    } catch (error) {
      throw new Error(`${String(name)} failed in the page: ${(error as Error).message}\n${browser.problems.slice(heard).join('\n')}`);
    }
  }

  before(async () => {
    // Bundled one after the other: each is a CPU-bound build, and the machine may be busy.
    sdk = await bundleForBrowser(SDK_ENTRY);
    const withZkp = sdk.files.filter((file) => file.packages.includes(ZKP));
    assert.equal(withZkp.length, 1, `one file of the SDK's bundle holds ${ZKP}: ${withZkp.map((file) => file.name).join(', ')}`);
    zkpChunk = withZkp[0];
    boltzCore = await bundleForBrowser(BOLTZ_CORE_ENTRY);
    const harness = await bundleForBrowser('test/browser/page/harness.ts', { '@ferry/sdk/client/index.js': `./sdk/${sdk.files[0].name}` });
    service = await startService();
    browser = await openPage((chromium as { path: string }).path, {
      '/': ['text/html; charset=utf-8', page(harness.files[0].name)],
      ...served(sdk, '/sdk'),
      ...served(harness, ''),
    });
    await browser.ready('ferryPageReady').catch((error: Error) => {
      throw new Error(`the page did not load the SDK: ${error.message}\n${browser.problems.join('\n')}`);
    });
    await inPage('connect', service.apiUrl);
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  test('the SDK bundles for the browser; sizes beside boltz-core, measured in this run', async () => {
    const line = (what: string, measure: (b: Bundle) => string) => console.log(`# sdk bundle: ${what}: ${measure(sdk)} (boltz-core: ${measure(boltzCore)})`);
    line('loaded with the page, minified+gzipped', (b) => `${kB(b.initial.gzippedBytes)} (minified ${kB(b.initial.minifiedBytes)})`);
    for (const file of sdk.files.filter((f) => f.lazy)) {
      console.log(`# sdk bundle: loaded on demand: ${file.name} (${file.packages.join(', ') || 'own source'}): ${kB(file.gzippedBytes)} minified+gzipped (minified ${kB(file.minifiedBytes)})`);
    }
    line('total minified', (b) => kB(b.minifiedBytes));
    line('total minified+gzipped', (b) => kB(b.gzippedBytes));
    line('npm packages in the bundle', (b) => `${b.packages.length}, ${MB(b.packagesDiskBytes)} on disk`);
    console.log(`# sdk bundle: the SDK's own source files in it: ${sdk.ownFiles}, ${kB(sdk.ownBytes)}`);
    console.log(`# sdk bundle: largest parts (minified): ${sdk.shares.slice(0, 8).map(([name, bytes]) => `${name} ${kB(bytes)}`).join(', ')}`);
    console.log(`# sdk bundle: packages: ${sdk.packages.map((p) => p.replace(/^.*node_modules\//, '')).join(', ')}`);
    // What the shims are for: the SDK's files whose dependencies reach for Node modules a browser lacks.
    const unshimmed = await bundleForBrowser(SDK_ENTRY, {}, { shims: false }).then(
      () => [],
      (error: unknown) => {
        if (!(error instanceof BundleError)) throw error;
        return error.unresolved;
      },
    );
    const reasons = new Set(
      unshimmed.map(({ module, chain }) => {
        const firstPackage = chain.findIndex((file) => file.includes('node_modules/'));
        const from = firstPackage > 0 ? `${chain[firstPackage - 1]} → ${chain[firstPackage].replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')}` : chain.join(' → ');
        return `${module} (${from})`;
      }),
    );
    console.log(`# sdk bundle: without the shims it cannot resolve: ${[...reasons].join(', ') || 'nothing'}`);
    for (const bundle of [sdk, boltzCore]) {
      assert.ok(bundle.gzippedBytes > 0 && bundle.gzippedBytes < bundle.minifiedBytes);
    }
    assert.ok(sdk.packages.some((p) => p.endsWith('node_modules/boltz-core')), 'the SDK builds on boltz-core');
    assert.ok(zkpChunk.lazy, `${zkpChunk.name}, which holds ${ZKP}, is loaded on demand, not with the page`);
    assert.deepEqual(zkpChunk.packages, [ZKP, 'long'], `${zkpChunk.name} holds secp256k1-zkp alone (and its dependency long)`);
    assert.deepEqual(browser.problems, [], 'the page loaded without errors');
  });

  for (const currency of ['BTC', 'L-BTC'] as const) {
    const chain = () => service.chains[currency];

    test(`${currency} reverse swap from the page: alice pays the invoice, the page claims into the user wallet`, async () => {
      const aliceBefore = await service.channelBalance('alice');
      const balanceBefore = await chain().userBalance();
      const destination = await chain().user.getNewAddress();
      const record = await inPage('createReverse', currency, 50_000);
      made.push(record);
      assert.equal(record.type, 'reverse');
      assert.equal(hex.encode(sha256(hex.decode(record.preimage))), record.preimageHash, 'the page made the preimage');
      assert.equal((await inPage('stored', record.id)).id, record.id, 'kept in the page before the invoice is shown');

      const following = inPage('follow', record.id, destination);
      // A hold invoice: the payment completes once Ferry has the preimage, from the page's claim.
      const payment = service.lightning('alice').payInvoice({ paymentRequest: record.invoice, feeLimitMsat: 1_000_000n, timeoutSeconds: 60 });
      const followed = await following;
      assert.equal(followed.success, true, followed.message);
      assert.equal((await payment).status, 'SUCCEEDED');
      const claimed = followed.events.find((e): e is Extract<FollowEvent, { type: 'claimed' }> => e.type === 'claimed');
      assert.ok(claimed, followed.events.map((e) => e.type).join(', '));

      // Effects: the claim the page signed is on chain and is the user wallet's coin.
      await chain().mine();
      const tx = await chain().node.getRawTransaction(claimed.claim.txid);
      assert.ok((tx.confirmations ?? 0) >= 1, 'the claim confirmed');
      const coin = (await chain().user.listUnspent(1)).find((u) => u.txid === claimed.claim.txid);
      assert.ok(coin, 'the claim pays the user wallet');
      assert.equal(BigInt(Math.round(coin.amount * 1e8)), BigInt(claimed.claim.amount));
      assert.equal((await chain().userBalance()) - balanceBefore, BigInt(claimed.claim.amount));
      assert.equal(BigInt(claimed.claim.amount) + BigInt(claimed.claim.fee), BigInt(record.onchainAmount));
      assert.equal(aliceBefore - (await service.channelBalance('alice')), 50_000);
      const stored = await inPage('stored', record.id);
      assert.equal(stored.type === 'reverse' && stored.claim?.txid, claimed.claim.txid, 'the page kept its claim');
    });

    test(`${currency} submarine swap from the page: its refund file is drawn there; funded, alice is paid and Ferry claims`, async () => {
      const aliceBefore = await service.channelBalance('alice');
      const { invoice, paymentHash } = await service.invoice('alice', 30_000);
      const record = await inPage('createSubmarine', currency, invoice);
      made.push(record);
      assert.equal(record.type, 'submarine');

      // The refund file, JSON and PNG, as Blobs in the page; read back here by the SDK in Node.
      const files = await inPage('refundFiles', record.id);
      assert.equal(files.jsonType, 'application/json');
      assert.equal(files.pngType, 'image/png');
      const fromJson = parseRefundFile(JSON.parse(files.json));
      const png = Buffer.from(files.png, 'base64');
      assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
      assert.deepEqual(parseRefundFileBytes(png, 'refund.png'), fromJson, 'the PNG carries the same refund file');
      assert.equal(fromJson.id, record.id);
      assert.equal(fromJson.currency, currency);
      assert.equal(fromJson.privateKey, record.privateKey, 'the key the page made');
      assert.equal(fromJson.timeoutBlockHeight, record.timeoutBlockHeight);
      if (currency === 'L-BTC') assert.equal(fromJson.blindingKey, record.blindingKey);

      const following = inPage('follow', record.id, await chain().user.getNewAddress());
      const lockupTxid = await chain().user.sendToAddress(record.lockupAddress, satToBtc(record.expectedAmount));
      await chain().mine();
      const followed = await following;
      assert.equal(followed.success, true, followed.message);
      const cosigned = followed.events.find((e): e is Extract<FollowEvent, { type: 'cosigned' }> => e.type === 'cosigned');
      assert.ok(cosigned, followed.events.map((e) => e.type).join(', '));
      assert.equal(hex.encode(sha256(hex.decode(cosigned.preimage))), paymentHash, 'the page co-signed on proof of payment');

      // Effects: alice was paid, and Ferry spent the lockup.
      assert.equal((await service.channelBalance('alice')) - aliceBefore, 30_000);
      const script = swapChain(currency).decodeAddress(record.lockupAddress, 'regtest').script;
      const vout = (await chain().node.getRawTransaction(lockupTxid)).vout.find((o) => o.scriptPubKey.hex === hex.encode(script))!.n;
      assert.equal(await chain().node.getTxOut(lockupTxid, vout, true), null, 'Ferry spent the lockup');
    });

    if (currency === 'BTC') {
      test(`a page doing BTC swaps fetched the SDK's initial files only, never ${ZKP}'s chunk`, () => {
        const fetched = new Set(browser.requests);
        for (const file of sdk.files.filter((f) => !f.lazy)) assert.ok(fetched.has(`${browser.origin}/sdk/${file.name}`), `the page fetched /sdk/${file.name}: ${[...fetched].join(', ')}`);
        assert.ok(!fetched.has(`${browser.origin}/sdk/${zkpChunk.name}`), `the page fetched ${zkpChunk.name} without an L-BTC swap`);
      });
    }
  }

  test(`the L-BTC swaps fetched ${ZKP}'s chunk on demand, once`, () => {
    const fetches = browser.requests.filter((url) => url === `${browser.origin}/sdk/${zkpChunk.name}`);
    assert.equal(fetches.length, 1, browser.requests.join(', '));
  });

  test('the page refuses a reverse answer whose invoice pays another hash, before it is shown, and keeps nothing of it', async () => {
    const foreign = await service.invoice('alice', 25_000);
    const keptBefore = made.length;
    const lied = await inPage('createReverseLiedTo', 'BTC', 25_000, foreign.invoice);
    assert.match(lied.refused ?? `accepted as ${lied.id}`, /^VerificationError: .*is not the hash of our preimage/);
    assert.equal(lied.kept, keptBefore, 'the refused swap is not stored');
  });

  test("the page kept its swaps, and its submarine swaps' refund files, in its own origin's localStorage", async () => {
    const keys = new Set(await inPage('localStorageKeys'));
    assert.ok(made.length > 0, 'the page made swaps');
    for (const { id, type } of made) {
      assert.ok(keys.has(`ferry-browser-test/swaps/${id}.json`), `swap ${id} is kept: ${[...keys].join(', ')}`);
      if (type === 'submarine') {
        for (const extension of ['json', 'png']) assert.ok(keys.has(`ferry-browser-test/refunds/${id}.${extension}`), `swap ${id}'s refund ${extension}`);
      }
    }
    assert.deepEqual(browser.problems, [], 'no page errors');
  });
});
