// Builds the swap page once, when Ferry starts: app.ts and the client SDK bundled for browsers by esbuild (with the
// Node shims a web app's bundler gives: stream, events, process), the stylesheet and the markup with this Ferry's
// network and path filled in. Each file is kept gzip-compressed, with an ETag from its content hash, so serving it
// is a lookup. esbuild runs in its own process and compression on libuv's threads: the API's event loop stays free.
import { build, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));
const resolveFromHere = createRequire(import.meta.url).resolve;
const gzipped = promisify(gzip);

/** One file of the page, ready to serve. */
export interface PageAsset {
  contentType: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

export interface BuiltPage {
  /** By path relative to the page's base: '' (the markup), 'page/app.js', 'page/style.css'. */
  assets: Map<string, PageAsset>;
  /** Milliseconds the build took. */
  buildMs: number;
}

/** secp256k1-zkp's Emscripten loader requires fs and path only in Node; in browsers it never does: empty modules. */
const zkpNodeBranch: Plugin = {
  name: 'secp256k1-zkp-node-branch',
  setup(bundler) {
    bundler.onResolve({ filter: /^(fs|path)$/ }, (args) =>
      args.importer.includes(`${sep}@vulpemventures${sep}secp256k1-zkp${sep}`) ? { path: args.path, namespace: 'empty-node-module' } : undefined,
    );
    bundler.onLoad({ filter: /.*/, namespace: 'empty-node-module' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

/** `stream` and `events` for create-hash (under liquidjs-lib and bolt11), from the npm packages made for browsers. */
const nodeShims: Plugin = {
  name: 'node-shims',
  setup(bundler) {
    const shims: Record<string, string> = { stream: resolveFromHere('stream-browserify'), events: resolveFromHere('events/') };
    bundler.onResolve({ filter: /^(stream|events)$/ }, (args) => ({ path: shims[args.path] }));
  },
};

async function asset(contentType: string, body: Buffer): Promise<PageAsset> {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { contentType, body, gzip: await gzipped(body, { level: 9 }), etag };
}

/** The page for a Ferry on `network`, served under `base` ('' for the root, else '/swap' and the like). */
export async function buildPage(options: { base: string; network: string }): Promise<BuiltPage> {
  const started = performance.now();
  const result = await build({
    entryPoints: [here('app.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
    plugins: [zkpNodeBranch, nodeShims],
    inject: [here('process-shim.js')],
    define: { global: 'globalThis' },
  });
  const html = (await readFile(here('index.html'), 'utf8')).replaceAll('__BASE__', options.base).replaceAll('__NETWORK__', options.network);
  const assets = new Map<string, PageAsset>([
    ['', await asset('text/html; charset=utf-8', Buffer.from(html))],
    ['page/app.js', await asset('text/javascript; charset=utf-8', Buffer.from(result.outputFiles[0].contents))],
    ['page/style.css', await asset('text/css; charset=utf-8', await readFile(here('style.css')))],
  ]);
  return { assets, buildMs: Math.round(performance.now() - started) };
}
