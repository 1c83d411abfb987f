// Builds the swap page once, when Ferry starts: app.ts and the client SDK bundled for browsers by esbuild (with the
// Node shims a web app's bundler gives, browser-build.ts), the stylesheet and the markup with this Ferry's
// network and path filled in. Each file is kept gzip-compressed, with an ETag from its content hash, so serving it
// is a lookup. esbuild runs in its own process and compression on libuv's threads: the API's event loop stays free.
// The script is split (ES modules): what a dynamic import() reaches — secp256k1-zkp's WebAssembly, needed for L-BTC
// only, most of the bytes — goes into chunks of its own under page/assets/, named by their content hash, which the
// browser fetches only when the code runs and may keep for good. The scripts are cached in a directory (the data
// directory's page-cache/) under the hashes of every file they were built from: a restart with the same sources
// reads them back instead of building again.
import { build, version as esbuildVersion } from 'esbuild';
import { nodeShims, processShim, zkpNodeBranch } from './browser-build.ts';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
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
  /**
   * By path relative to the page's base: '' (the markup), 'page/app.js', 'page/style.css', and the chunks app.js
   * imports, 'page/assets/<name>-<hash>.js'.
   */
  assets: Map<string, PageAsset>;
  /** The chunk that holds secp256k1-zkp (by its path in `assets`): fetched for L-BTC swaps only. */
  zkpChunk: string;
  /** Milliseconds the build took. */
  buildMs: number;
  /** The script came from the cache (its sources unchanged since it was built). */
  cached: boolean;
}

/** What the cache keeps beside the scripts: esbuild's version, the hash of each source file by absolute path, the scripts. */
interface CacheManifest {
  esbuild: string;
  sources: Record<string, string>;
  /** The scripts' paths relative to page/ ('app.js', 'assets/…'), each a file under the cache's out/. */
  outputs: string[];
  zkpChunk: string;
}

/** The scripts of one build, by path relative to page/. */
interface Scripts {
  files: Map<string, Buffer>;
  zkpChunk: string;
}

const fileHash = async (path: string): Promise<string> => createHash('sha256').update(await readFile(path)).digest('hex');

/** The cached scripts, if every file they were built from is unchanged. */
async function fromCache(cacheDir: string): Promise<Scripts | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(cacheDir, 'manifest.json'), 'utf8')) as CacheManifest;
    if (manifest.esbuild !== esbuildVersion || !Array.isArray(manifest.outputs)) return undefined;
    for (const [path, hash] of Object.entries(manifest.sources)) if ((await fileHash(path)) !== hash) return undefined;
    const files = new Map<string, Buffer>();
    for (const output of manifest.outputs) files.set(output, await readFile(join(cacheDir, 'out', output)));
    return { files, zkpChunk: manifest.zkpChunk };
  } catch {
    return undefined; // no cache yet, or one this cannot read: build
  }
}

async function toCache(cacheDir: string, scripts: Scripts, inputs: string[]): Promise<void> {
  const sources: Record<string, string> = {};
  // this file holds the build's options: a change to them is a change to the scripts
  for (const path of [...inputs, here('bundle.ts'), here('browser-build.ts')]) sources[path] = await fileHash(path);
  // the old manifest goes first (a crash midway leaves none: no cache), then the scripts, the new manifest last
  await rm(join(cacheDir, 'manifest.json'), { force: true });
  await rm(join(cacheDir, 'out'), { recursive: true, force: true });
  await mkdir(join(cacheDir, 'out', 'assets'), { recursive: true });
  for (const [output, body] of scripts.files) await writeFile(join(cacheDir, 'out', output), body);
  const manifest: CacheManifest = { esbuild: esbuildVersion, sources, outputs: [...scripts.files.keys()], zkpChunk: scripts.zkpChunk };
  await writeFile(join(cacheDir, 'manifest.json.new'), JSON.stringify(manifest));
  await rename(join(cacheDir, 'manifest.json.new'), join(cacheDir, 'manifest.json'));
}

async function asset(contentType: string, body: Buffer): Promise<PageAsset> {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { contentType, body, gzip: await gzipped(body, { level: 9 }), etag };
}

/** The page for a Ferry on `network`, served under `base` ('' for the root, else '/swap' and the like). */
export async function buildPage(options: { base: string; network: string; cacheDir?: string }): Promise<BuiltPage> {
  const started = performance.now();
  let scripts = options.cacheDir === undefined ? undefined : await fromCache(options.cacheDir);
  const cached = scripts !== undefined;
  if (scripts === undefined) {
    const out = here('out'); // a name for esbuild's output paths only: write: false, nothing goes there
    const result = await build({
      entryPoints: [here('app.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      splitting: true,
      outdir: out,
      entryNames: '[name]',
      chunkNames: 'assets/[name]-[hash]',
      target: 'es2022',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [zkpNodeBranch, nodeShims],
      ...processShim,
    });
    const files = new Map(result.outputFiles.map((file) => [relative(out, file.path).split(sep).join('/'), Buffer.from(file.contents)]));
    // metafile paths are relative to the working directory
    const zkp = Object.entries(result.metafile.outputs).find(([, output]) => Object.keys(output.inputs).some((input) => input.includes('secp256k1-zkp/')));
    if (zkp === undefined) throw new Error('no chunk holds secp256k1-zkp: the page build changed shape');
    scripts = { files, zkpChunk: relative(out, resolve(zkp[0])).split(sep).join('/') };
    if (!files.has('app.js') || !files.has(scripts.zkpChunk)) throw new Error(`unexpected page build outputs: ${[...files.keys()].join(', ')}`);
    if (options.cacheDir !== undefined) {
      // a plugin's stand-ins (namespace:path) are no files
      const inputs = Object.keys(result.metafile.inputs).filter((path) => !path.includes(':')).map((path) => resolve(path));
      await toCache(options.cacheDir, scripts, inputs);
    }
  }
  const html = (await readFile(here('index.html'), 'utf8')).replaceAll('__BASE__', options.base).replaceAll('__NETWORK__', options.network);
  const assets = new Map<string, PageAsset>([
    ['', await asset('text/html; charset=utf-8', Buffer.from(html))],
    ['page/style.css', await asset('text/css; charset=utf-8', await readFile(here('style.css')))],
  ]);
  for (const [output, body] of scripts.files) assets.set(`page/${output}`, await asset('text/javascript; charset=utf-8', body));
  return { assets, zkpChunk: `page/${scripts.zkpChunk}`, buildMs: Math.round(performance.now() - started), cached };
}
