// Bundles an entry for the browser with esbuild (platform browser, ESM, minified, code splitting), as a wallet's web
// app would, and measures what a browser downloads (minified and gzipped bytes) — with the page, and on demand: each
// dynamic import becomes a chunk of its own — and what the bundle's npm packages take on disk. A build that fails
// says, for each module it could not resolve (a Node built-in, mostly), the import chain from the entry that pulled it
// in: what to cut is then plain.
import { build, type Metafile, type Plugin } from 'esbuild';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { nodeShims, processShim, zkpNodeBranch } from '../../src/page/browser-build.ts';


/** One file of the build: the entry's, or a chunk it imports. */
export interface BundleFile {
  /** Its name beside the entry's (index.js, chunk-<hash>.js, ...), as the files import each other: serve them together. */
  name: string;
  contents: Uint8Array;
  minifiedBytes: number;
  gzippedBytes: number;
  /** Reached from the entry only through a dynamic import(): the browser fetches it when the code first needs it. */
  lazy: boolean;
  /** The npm packages with files in it, by name (boltz-core, @vulpemventures/secp256k1-zkp, ...). */
  packages: string[];
}

export interface Bytes {
  minifiedBytes: number;
  gzippedBytes: number;
}

export interface Bundle extends Bytes {
  /** Every file (the entry's first: what a page's script loads); minifiedBytes and gzippedBytes are theirs summed, each file gzipped alone. */
  files: BundleFile[];
  /** What a page fetches with the entry: its file and the chunks it imports statically. */
  initial: Bytes;
  /** The chunks fetched only on demand. */
  lazy: Bytes;
  /** The npm packages whose files are in the bundle, as directories (node_modules/...), and their whole size on disk. */
  packages: string[];
  packagesDiskBytes: number;
  /** The entry's own source files in the bundle (outside node_modules), and their size. */
  ownFiles: number;
  ownBytes: number;
  /** Minified bytes in the bundle by package (the SDK's own files as 'own source'), largest first. */
  shares: [string, number][];
}

export class BundleError extends Error {
  constructor(
    message: string,
    /** For each module that could not be resolved: its name and the import chain from the entry (files). */
    readonly unresolved: { module: string; chain: string[] }[] = [],
  ) {
    super(message);
  }
}

const NODE_BUILTIN = /^(node:.*|assert|buffer|child_process|crypto|dns|events|fs|http|https|module|net|os|path|stream|string_decoder|tls|url|util|worker_threads|zlib)$/;

/** The import chain from the entry to each module that imports a Node built-in, from a build that lets them be. */
async function builtinChains(entry: string, plugins: Plugin[], unresolved: Set<string>): Promise<{ module: string; chain: string[] }[]> {
  const chains = new Map<string, { module: string; chain: string[] }>();
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [...plugins, { name: 'builtins-external', setup: (b) => b.onResolve({ filter: NODE_BUILTIN }, (a) => ({ path: a.path, external: true })) }],
  }).catch(() => undefined);
  if (!result) return [];
  const inputs = result.metafile.inputs;
  const start = relative(process.cwd(), resolve(entry));
  const parent = new Map<string, string>();
  const queue = [start];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const imported of inputs[file]?.imports ?? []) {
      if (imported.external) {
        if (!unresolved.has(imported.path)) continue;
        const chain = [file];
        for (let at = parent.get(file); at !== undefined; at = parent.get(at)) chain.unshift(at);
        chains.set(`${imported.path} ← ${chain.join(' → ')}`, { module: imported.path, chain });
      } else if (!seen.has(imported.path)) {
        seen.add(imported.path);
        parent.set(imported.path, file);
        queue.push(imported.path);
      }
    }
  }
  return [...chains.values()];
}

/** The directory of the npm package a bundled file belongs to (the innermost node_modules/<name> or <@scope/name>). */
function packageOf(file: string): string | undefined {
  const parts = file.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  const length = parts[at + 1]?.startsWith('@') ? 3 : 2;
  return parts.slice(0, at + length).join('/');
}

/** Where the build's files would go: nothing is written, their names are read relative to it. */
const OUTDIR = 'browser-bundle';

/**
 * The build's files, the entry's first, each measured, and whether the page loads it with the entry (the entry's file
 * and, transitively, what it imports statically) or only on demand (what only a dynamic import reaches).
 */
function filesOf(metafile: Metafile, outputs: { path: string; contents: Uint8Array }[]): BundleFile[] {
  const entry = Object.keys(metafile.outputs).find((name) => metafile.outputs[name].entryPoint !== undefined && name.endsWith('.js'));
  if (entry === undefined) throw new Error('esbuild made no entry file');
  const initial = new Set([entry]);
  for (const name of initial) {
    for (const imported of metafile.outputs[name].imports) if (imported.kind === 'import-statement' && !imported.external) initial.add(imported.path);
  }
  const nameOf = (output: string) => relative(OUTDIR, output).split(sep).join('/');
  const files = Object.entries(metafile.outputs)
    .filter(([name]) => name.endsWith('.js'))
    .map(([name, output]): BundleFile => {
      const contents = outputs.find((file) => nameOf(relative(process.cwd(), file.path)) === nameOf(name))?.contents;
      if (contents === undefined) throw new Error(`esbuild's metafile names ${name}, which it did not output`);
      const packages = new Set(Object.keys(output.inputs).flatMap((input) => packageOf(input)?.replace(/^.*node_modules\//, '') ?? []));
      return {
        name: nameOf(name),
        contents,
        minifiedBytes: contents.length,
        gzippedBytes: gzipSync(contents, { level: 9 }).length,
        lazy: !initial.has(name),
        packages: [...packages].sort(),
      };
    });
  return files.sort((a, b) => Number(a.name !== nameOf(entry)) - Number(b.name !== nameOf(entry)));
}

/** Bytes of a package's files; its own nested node_modules are other packages, counted when they are in the bundle. */
function diskBytes(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.size;
  return readdirSync(path)
    .filter((name) => name !== 'node_modules')
    .reduce((sum, name) => sum + diskBytes(join(path, name)), 0);
}

export function packagesOf(metafile: Metafile): { packages: string[]; own: string[] } {
  const packages = new Set<string>();
  const own: string[] = [];
  for (const file of Object.keys(metafile.inputs)) {
    if (file.includes(':')) continue; // a plugin's stand-in, not a file
    const pkg = packageOf(file);
    if (pkg === undefined) own.push(file);
    else packages.add(pkg);
  }
  return { packages: [...packages].sort(), own };
}

/**
 * `entry` bundled for browsers. `external` maps import paths (as written) to what the output imports instead, e.g. the
 * SDK's index to './sdk.js', so a page's own script loads the measured bundle rather than a second copy.
 */
export async function bundleForBrowser(entry: string, external: Record<string, string> = {}, options: { shims?: boolean } = {}): Promise<Bundle> {
  const shims = options.shims ?? true;
  const plugins: Plugin[] = shims ? [zkpNodeBranch, nodeShims] : [zkpNodeBranch];
  const replacements = Object.entries(external);
  if (replacements.length > 0) {
    plugins.push({
      name: 'external-sdk',
      setup(bundler) {
        for (const [from, to] of replacements) {
          const filter = new RegExp(`^${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
          bundler.onResolve({ filter }, () => ({ path: to, external: true }));
        }
      },
    });
  }
  let result;
  try {
    result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      minify: true,
      splitting: true,
      outdir: OUTDIR,
      write: false,
      metafile: true,
      logLevel: 'silent',
      plugins,
      ...(shims && processShim),
    });
  } catch (error) {
    const errors = (error as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors ?? [];
    const lines = errors.map((e) => `  ${e.text}${e.location ? ` (${e.location.file}:${e.location.line})` : ''}`);
    const unresolved = new Set(errors.map((e) => /^Could not resolve "(.*)"$/.exec(e.text)?.[1]).filter((path) => path !== undefined));
    const chains = unresolved.size > 0 ? await builtinChains(entry, plugins, unresolved) : [];
    throw new BundleError(
      [
        `esbuild could not bundle ${entry} for the browser: ${errors.length} errors`,
        ...lines,
        ...(chains.length > 0 ? ['the unresolved modules and the imports that pull them in:', ...chains.map((c) => `  ${c.module} ← ${c.chain.join(' → ')}`)] : []),
      ].join('\n'),
      chains,
    );
  }
  const files = filesOf(result.metafile, result.outputFiles);
  const sum = (list: BundleFile[]): Bytes => ({
    minifiedBytes: list.reduce((total, file) => total + file.minifiedBytes, 0),
    gzippedBytes: list.reduce((total, file) => total + file.gzippedBytes, 0),
  });
  const { packages, own } = packagesOf(result.metafile);
  const shares = new Map<string, number>();
  for (const bundled of Object.values(result.metafile.outputs)) {
    for (const [file, { bytesInOutput }] of Object.entries(bundled.inputs)) {
      const name = packageOf(file)?.replace(/^.*node_modules\//, '') ?? (file.includes(':') ? 'shims' : 'own source');
      shares.set(name, (shares.get(name) ?? 0) + bytesInOutput);
    }
  }
  return {
    files,
    ...sum(files),
    initial: sum(files.filter((file) => !file.lazy)),
    lazy: sum(files.filter((file) => file.lazy)),
    packages,
    packagesDiskBytes: packages.reduce((sum, pkg) => sum + diskBytes(pkg), 0),
    ownFiles: own.length,
    ownBytes: own.reduce((sum, file) => sum + statSync(file).size, 0),
    shares: [...shares].sort((a, b) => b[1] - a[1]),
  };
}

export const kB = (bytes: number): string => `${(bytes / 1024).toFixed(1)} kB`;
export const MB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
