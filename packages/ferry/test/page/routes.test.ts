// How the swap page's files are served, on the API's HTTP server as Ferry assembles it: at a moved path, gzip to
// clients that accept it, revalidated by ETag (the hashed chunks kept immutable, unknown or escaping chunk paths a
// 404), only for GET and HEAD, with a content security policy on the markup;
// the API's own routes answer as before beside it. No browser and no devnet: the page is built here for real.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { get, type IncomingHttpHeaders, type Server } from 'node:http';
import { createApiServer } from '../../src/api/index.ts';
import { listen, stopServer } from '../../src/api/http/server.ts';
import { createLogger } from '../../src/log/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import { checkPagePath, pageRoutes, type PageRoutes } from '../../src/page/routes.ts';
import { buildPage } from '../../src/page/bundle.ts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A GET whose body is read as sent (fetch would undo the compression under test). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

describe('the swap page on the API server, at a moved path', { timeout: 300_000 }, () => {
  let page: PageRoutes;
  let server: Server;
  let url: string;

  before(async () => {
    const logger = createLogger({ level: 'error', json: true, write: () => undefined });
    page = pageRoutes({ path: '/swap', network: 'testnet', logger });
    server = createApiServer({ chains: new Map(), lightning: {}, logger, maxBodyBytes: 1024, rawRoutes: page.routes, rawPrefixes: page.prefixes });
    const address = await listen(server, 0, '127.0.0.1');
    url = `http://127.0.0.1:${address.port}`;
  });
  after(async () => {
    await stopServer(server);
  });

  test('the markup names its network and loads its files from under the moved path, with a content security policy', async () => {
    for (const path of ['/swap', '/swap/']) {
      const response = await fetch(url + path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'.*connect-src 'self'/);
      const html = await response.text();
      assert.match(html, /<meta name="ferry-network" content="testnet">/);
      assert.match(html, /src="\/swap\/page\/app\.js"/);
      assert.match(html, /href="\/swap\/page\/style\.css"/);
    }
    // The root is the API's again: not found, as JSON.
    const root = await fetch(url + '/');
    assert.equal(root.status, 404);
    assert.match((await root.json()).error, /not found/);
  });

  test('the script goes out gzip-compressed with an ETag; the same ETag answers 304 with no body', async () => {
    const built = (await page.built).assets.get('page/app.js')!;
    const response = await rawGet(url + '/swap/page/app.js', { 'accept-encoding': 'gzip, deflate' });
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-encoding'], 'gzip');
    assert.equal(response.headers.vary, 'accept-encoding');
    const etag = response.headers.etag!;
    assert.equal(etag, built.etag);
    const wire = response.body;
    assert.equal(Number(response.headers['content-length']), wire.length);
    assert.ok(wire.length < built.body.length / 1.5, `compressed: ${wire.length} of ${built.body.length} bytes`);
    assert.deepEqual(gunzipSync(wire), built.body);
    const plain = await rawGet(url + '/swap/page/app.js', {});
    assert.equal(plain.headers['content-encoding'], undefined, 'uncompressed to a client that does not accept gzip');
    assert.deepEqual(plain.body, built.body);
    console.log(`# swap page: app.js ${(built.body.length / 1024).toFixed(0)} kB minified, ${(wire.length / 1024).toFixed(0)} kB gzip; built in ${(await page.built).buildMs} ms`);

    const again = await fetch(url + '/swap/page/app.js', { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal((await again.arrayBuffer()).byteLength, 0);
  });

  test("the script's chunks: imported by app.js, gzip, kept a year under their hashed names; secp256k1-zkp in one of its own", async () => {
    const built = await page.built;
    const app = built.assets.get('page/app.js')!.body.toString('utf8');
    const chunks = [...built.assets.keys()].filter((name) => name.startsWith('page/assets/'));
    assert.ok(chunks.length >= 2, `chunks: ${chunks.join(', ')}`);
    assert.ok(chunks.includes(built.zkpChunk), 'the zkp chunk is served');
    // app.js reaches every chunk (statically or by import()), by a path relative to itself or through other chunks
    // (a chunk names its siblings './<name>.js'): the RBTC code's chunks import the shared ones, and the zkp chunk is
    // imported by the SDK's chunk
    const reached = new Set<string>();
    const follow = (body: string, prefix: string) => {
      for (const [, name] of body.matchAll(new RegExp(`["'\`]\\./${prefix}([A-Za-z0-9_-]+-[A-Z0-9]{8}\\.js)["'\`]`, 'g'))) {
        const chunk = `page/assets/${name}`;
        if (reached.has(chunk) || !built.assets.has(chunk)) continue;
        reached.add(chunk);
        follow(built.assets.get(chunk)!.body.toString('utf8'), '');
      }
    };
    follow(app, 'assets/');
    for (const chunk of chunks) assert.ok(reached.has(chunk), `app.js reaches ${chunk}`);
    const sizes: string[] = [];
    for (const chunk of chunks) {
      const file = built.assets.get(chunk)!;
      assert.match(chunk, /^page\/assets\/[A-Za-z0-9_-]+-[A-Z0-9]{8}\.js$/, 'named by its content hash');
      const response = await rawGet(`${url}/swap/${chunk}`, { 'accept-encoding': 'gzip' });
      assert.equal(response.status, 200, chunk);
      assert.equal(response.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(response.headers['content-encoding'], 'gzip');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers.etag, file.etag);
      assert.deepEqual(gunzipSync(response.body), file.body);
      sizes.push(`${chunk.slice('page/assets/'.length)} ${(file.body.length / 1024).toFixed(0)} kB (${(response.body.length / 1024).toFixed(0)} kB gzip)`);
    }
    const zkp = built.assets.get(built.zkpChunk)!;
    assert.ok(zkp.gzip.length > built.assets.get('page/app.js')!.gzip.length, 'the zkp chunk is the heavy one');
    console.log(`# swap page chunks: ${sizes.join(', ')}; zkp: ${built.zkpChunk}`);
    // the script and markup keep their names: still revalidated at each load
    assert.equal((await fetch(url + '/swap/page/app.js')).headers.get('cache-control'), 'no-cache');
  });

  test('a chunk the build did not make, or a path that leaves the chunks, is a 404 as JSON; the API is untouched', async () => {
    const built = await page.built;
    const zkpName = built.zkpChunk.slice('page/assets/'.length);
    const missing = [
      '/swap/page/assets/chunk-AAAAAAAA.js',
      '/swap/page/assets/',
      '/swap/page/assets/app.ts',
      `/swap/page/assets/${zkpName}/x`,
      `/swap/page/assets/${zkpName.replace('.js', '.JS')}`,
      '/swap/page/assets/..%2f..%2fpackage.json',
      '/swap/page/assets/%2e%2e%2fstyle.css',
      '/swap/page/assets/%2e%2e/%2e%2e/%2e%2e/package.json',
      '/swap/page/assets/../../../../etc/passwd',
      `/page/assets/${zkpName}`, // the page is at /swap: nothing at the root
    ];
    for (const path of missing) {
      // the path sent as written (fetch and http.get(url) would resolve the dots first)
      const response = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
        get({ host: '127.0.0.1', port: Number(new URL(url).port), path }, (answer) => {
          let body = '';
          answer.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          answer.on('end', () => resolve({ status: answer.statusCode!, type: String(answer.headers['content-type']), body }));
        }).on('error', reject);
      });
      assert.equal(response.status, 404, path);
      assert.match(response.type, /^application\/json/, path);
      assert.match((JSON.parse(response.body) as { error: string }).error, /not found/, path);
    }
    const post = await fetch(`${url}/swap/${built.zkpChunk}`, { method: 'POST', body: '{}' });
    assert.equal(post.status, 405);
    assert.match((await post.json()).error, /method not allowed/);
    const api = await fetch(url + '/v2/nothing-here');
    assert.equal(api.status, 404);
    assert.match((await api.json()).error, /not found: GET \/v2\/nothing-here/);
  });

  test('HEAD answers the headers; other methods are refused as JSON', async () => {
    const head = await fetch(url + '/swap/page/style.css', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.match(head.headers.get('content-type') ?? '', /^text\/css/);
    const post = await fetch(url + '/swap', { method: 'POST', body: '{}' });
    assert.equal(post.status, 405);
    assert.match((await post.json()).error, /method not allowed/);
  });

  test('the API answers while a page builds: the build runs beside the event loop, not on it', async () => {
    const logger = createLogger({ level: 'error', json: true, write: () => undefined });
    let done = false;
    const building = pageRoutes({ path: '/', network: 'regtest', logger }).built.then(() => (done = true));
    const answered: number[] = [];
    while (!done) {
      const started = performance.now();
      const response = await fetch(url + '/v2/version');
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      if (!done) answered.push(performance.now() - started);
    }
    await building;
    answered.sort((a, b) => a - b);
    const at = (q: number) => answered[Math.min(answered.length - 1, Math.floor(q * answered.length))].toFixed(1);
    console.log(`# swap page: during a build the API answered ${answered.length} requests, median ${at(0.5)} ms, slowest ${at(1)} ms`);
    assert.ok(answered.length > 1, 'the API answered during the build');
  });

  test('the API answers beside the page', async () => {
    const response = await fetch(url + '/v2/version');
    assert.equal(response.status, 200);
    assert.ok((await response.json()).version);
  });
});

describe("the page's build cache", { timeout: 300_000 }, () => {
  test('a second start with the same sources reads the script back; a changed source builds it again', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'ferry-page-cache-'));
    try {
      const first = await buildPage({ base: '', network: 'regtest', cacheDir });
      assert.equal(first.cached, false);
      const manifest = JSON.parse(readFileSync(join(cacheDir, 'manifest.json'), 'utf8')) as { sources: Record<string, string> };
      const sources = Object.keys(manifest.sources);
      assert.ok(sources.some((path) => path.endsWith(join('src', 'page', 'app.ts'))), 'the page script is a source');
      assert.ok(sources.some((path) => path.endsWith(join('sdk', 'src', 'client', 'client.ts'))), "the SDK's files are sources");
      const second = await buildPage({ base: '', network: 'regtest', cacheDir });
      assert.equal(second.cached, true);
      assert.equal(second.assets.get('page/app.js')!.etag, first.assets.get('page/app.js')!.etag, 'the same script');
      assert.deepEqual([...second.assets.keys()].sort(), [...first.assets.keys()].sort(), 'the same chunks');
      assert.equal(second.zkpChunk, first.zkpChunk);
      assert.equal(second.assets.get(second.zkpChunk)!.etag, first.assets.get(first.zkpChunk)!.etag);
      console.log(`# swap page: built in ${first.buildMs} ms; read from the cache in ${second.buildMs} ms (${sources.length} source files checked)`);

      // A source that changed since (as the manifest now says): built again, and the manifest renewed.
      manifest.sources[sources[0]] = '0'.repeat(64);
      writeFileSync(join(cacheDir, 'manifest.json'), JSON.stringify(manifest));
      const third = await buildPage({ base: '', network: 'regtest', cacheDir });
      assert.equal(third.cached, false);
      assert.equal(third.assets.get('page/app.js')!.etag, first.assets.get('page/app.js')!.etag);
      assert.equal((await buildPage({ base: '', network: 'regtest', cacheDir })).cached, true);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});

describe('page settings', () => {
  test('on at "/" by default; turned off or moved by [page] or the environment', () => {
    const defaults = loadConfig({ env: {} });
    assert.deepEqual(defaults.page, { enabled: true, path: '/' });
    const moved = loadConfig({ env: { FERRY_PAGE_ENABLED: 'false', FERRY_PAGE_PATH: '/swap' } });
    assert.deepEqual(moved.page, { enabled: false, path: '/swap' });
  });

  test('a path must be "/" or like "/swap"', () => {
    for (const good of ['/', '/swap', '/a/b-c']) assert.equal(checkPagePath(good), good);
    for (const bad of ['', 'swap', '/swap/', '/a b', '/<script>']) assert.throws(() => checkPagePath(bad), /page\.path must be/);
  });
});
