// Builds the swap page once, when Ferry starts: app.ts and the client SDK bundled for browsers by esbuild (with the
// Node shims a web app's bundler gives, browser-build.ts), the stylesheet and the markup with this Ferry's
// network and path filled in. Each file is kept gzip-compressed, with an ETag from its content hash, so serving it
// is a lookup. esbuild runs in its own process and compression on libuv's threads: the API's event loop stays free.
// The script is cached in a directory (the data directory's page-cache/) under the hashes of every file it was built
// from: a restart with the same sources reads it back instead of building again.
import { build, version as esbuildVersion } from 'esbuild';
import { nodeShims, processShim, zkpNodeBranch } from './browser-build.ts';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));
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
  /** The script came from the cache (its sources unchanged since it was built). */
  cached: boolean;
}

/** What the cache keeps beside the script: esbuild's version and the hash of each source file, by absolute path. */
interface CacheManifest {
  esbuild: string;
  sources: Record<string, string>;
}

const fileHash = async (path: string): Promise<string> => createHash('sha256').update(await readFile(path)).digest('hex');

/** The cached script, if every file it was built from is unchanged. */
async function fromCache(cacheDir: string): Promise<Buffer | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(cacheDir, 'manifest.json'), 'utf8')) as CacheManifest;
    if (manifest.esbuild !== esbuildVersion) return undefined;
    for (const [path, hash] of Object.entries(manifest.sources)) if ((await fileHash(path)) !== hash) return undefined;
    return await readFile(join(cacheDir, 'app.js'));
  } catch {
    return undefined; // no cache yet, or one this cannot read: build
  }
}

async function toCache(cacheDir: string, script: Uint8Array, inputs: string[]): Promise<void> {
  const sources: Record<string, string> = {};
  // this file holds the build's options: a change to them is a change to the script
  for (const path of [...inputs, here('bundle.ts'), here('browser-build.ts')]) sources[path] = await fileHash(path);
  await mkdir(cacheDir, { recursive: true });
  // the script first, the manifest that vouches for it last, each replaced whole
  await writeFile(join(cacheDir, 'app.js.new'), script);
  await rename(join(cacheDir, 'app.js.new'), join(cacheDir, 'app.js'));
  await writeFile(join(cacheDir, 'manifest.json.new'), JSON.stringify({ esbuild: esbuildVersion, sources } satisfies CacheManifest));
  await rename(join(cacheDir, 'manifest.json.new'), join(cacheDir, 'manifest.json'));
}

async function asset(contentType: string, body: Buffer): Promise<PageAsset> {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { contentType, body, gzip: await gzipped(body, { level: 9 }), etag };
}

/** The page for a Ferry on `network`, served under `base` ('' for the root, else '/swap' and the like). */
export async function buildPage(options: { base: string; network: string; cacheDir?: string }): Promise<BuiltPage> {
  const started = performance.now();
  let script = options.cacheDir === undefined ? undefined : await fromCache(options.cacheDir);
  const cached = script !== undefined;
  if (script === undefined) {
    const result = await build({
      entryPoints: [here('app.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [zkpNodeBranch, nodeShims],
      ...processShim,
    });
    script = Buffer.from(result.outputFiles[0].contents);
    if (options.cacheDir !== undefined) {
      // metafile inputs are relative to the working directory; a plugin's stand-ins (namespace:path) are no files
      const inputs = Object.keys(result.metafile.inputs).filter((path) => !path.includes(':')).map((path) => resolve(path));
      await toCache(options.cacheDir, script, inputs);
    }
  }
  const html = (await readFile(here('index.html'), 'utf8')).replaceAll('__BASE__', options.base).replaceAll('__NETWORK__', options.network);
  const assets = new Map<string, PageAsset>([
    ['', await asset('text/html; charset=utf-8', Buffer.from(html))],
    ['page/app.js', await asset('text/javascript; charset=utf-8', script)],
    ['page/style.css', await asset('text/css; charset=utf-8', await readFile(here('style.css')))],
  ]);
  return { assets, buildMs: Math.round(performance.now() - started), cached };
}
