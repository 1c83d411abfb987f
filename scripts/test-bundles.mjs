// Builds, once per test run, the test files, the `ferry` command and the contract observer as plain JavaScript
// (esbuild), for the node processes of the run: through tsx's hooks a process spent about half of its CPU compiling
// and resolving modules (`ferry start` 4.6 s against 2.9 s bundled, the usage text 1.0 s against 0.45 s, loading the
// v1 API tests' world 1.4 s against 0.5 s), and a run starts thousands of them. The bundles are the sources as they
// are: only `import.meta.url` and `import.meta.dirname` are rewritten to each source file's own, so files found
// beside a source (the swap page, its shims, package.json, fixtures) are found as before; npm packages stay outside,
// loaded from node_modules. A build is kept in node_modules/.cache and reused while every file it was built from,
// and the list of test files, is unchanged.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'ferry-test-bundles');
const ENTRIES = ['packages/ferry/src/cli/main.ts', 'packages/ferry/test/contracts/observe.ts'];

/** Where the bundle of a source file (a path from the repository's root) is, in a build's directory. */
export const bundleOf = (dir, file) => join(dir, file.replace(/\.ts$/, '.js'));

/** The hash of the files a build was made from (the build script itself among them). */
function hashOf(inputs) {
  const hash = createHash('sha256');
  for (const file of inputs) {
    hash.update(file);
    hash.update(existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file)) : 'missing');
  }
  return hash.digest('hex');
}

// The workspace's own modules go into the bundle, every npm package stays an import of node_modules (JSON files
// are bundled: node would want an import attribute tsx does not ask for).
const ownSourcesOnly = {
  name: 'own-sources-only',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind === 'entry-point' || args.path.startsWith('@ferry/') || args.path.endsWith('.json')) return undefined;
      return { path: args.path, external: true };
    });
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: text.replaceAll('import.meta.url', url).replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path))), loader: 'ts' };
    });
  },
};

/**
 * The bundles' directory, built or reused: `ferry.mjs` runs the `ferry` command like bin/ferry.mjs, each source
 * entry (`testFiles`, paths from the repository's root, and the contract observer) is at bundleOf(dir, file).
 */
export async function testBundles(testFiles) {
  const entries = [...ENTRIES, ...testFiles].sort();
  const manifest = join(CACHE, 'inputs.json');
  if (existsSync(manifest)) {
    const built = JSON.parse(readFileSync(manifest, 'utf8'));
    if (JSON.stringify(built.entries) === JSON.stringify(entries) && hashOf(built.inputs) === built.hash && existsSync(join(built.dir, 'ferry.mjs'))) {
      const now = new Date();
      utimesSync(built.dir, now, now); // in use again: not an earlier build to clear away
      return built.dir;
    }
  }
  const { build } = await import('esbuild');
  const staging = join(CACHE, `build-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(CACHE, { recursive: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: entries.map((file) => join(ROOT, file)),
    outbase: ROOT,
    entryNames: '[dir]/[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true, // the command's dynamic imports stay lazy: `ferry version` loads no more than before
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: staging,
    plugins: [ownSourcesOnly],
    metafile: true,
    logLevel: 'error',
  });
  writeFileSync(join(staging, 'ferry.mjs'), "const { main } = await import('./packages/ferry/src/cli/main.js');\nawait main(process.argv.slice(2));\n");
  const inputs = [...Object.keys(result.metafile.inputs), 'scripts/test-bundles.mjs', 'package-lock.json'].sort();
  const hash = hashOf(inputs);
  const dir = join(CACHE, hash.slice(0, 16));
  // the same inputs built by another run at the same time: keep its build, which that run may be using
  if (existsSync(join(dir, 'ferry.mjs'))) rmSync(staging, { recursive: true, force: true });
  else {
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  }
  writeFileSync(manifest, JSON.stringify({ entries, inputs, hash, dir }));
  // earlier builds go once no run can still be using them
  for (const name of readdirSync(CACHE)) {
    const old = join(CACHE, name);
    if (old !== dir && name !== 'inputs.json' && Date.now() - statSync(old).mtimeMs > 3_600_000) rmSync(old, { recursive: true, force: true });
  }
  return dir;
}
