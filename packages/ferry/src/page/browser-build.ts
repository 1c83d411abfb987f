// What a web app's bundler config gives the client SDK's dependencies written for Node, for esbuild: the swap page's
// build (bundle.ts) and the browser test's (test/browser/bundle.ts) use the same, so the test measures what the page
// ships. create-hash (under liquidjs-lib) builds on `stream` and `events`; readable-stream calls `process.nextTick`
// and reads `global`; boltz-core and bitcoinjs-lib call the global `Buffer`; secp256k1-zkp's Emscripten loader requires `fs` and `path` in its Node branch only. Each comes
// from the npm package made for it; no other Node module is shimmed, so one more still fails the build.
import type { BuildOptions, Plugin } from 'esbuild';
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const resolveFromHere = createRequire(import.meta.url).resolve;

/** Empty stand-ins for secp256k1-zkp's `fs` and `path` (esbuild, unlike Vite, has none), for that package only. */
export const zkpNodeBranch: Plugin = {
  name: 'secp256k1-zkp-node-branch',
  setup(bundler) {
    bundler.onResolve({ filter: /^(fs|path)$/ }, (args) =>
      args.importer.includes(`${sep}@vulpemventures${sep}secp256k1-zkp${sep}`) ? { path: args.path, namespace: 'empty-node-module' } : undefined,
    );
    bundler.onLoad({ filter: /.*/, namespace: 'empty-node-module' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

/** `stream` and `events` from stream-browserify and events. */
export const nodeShims: Plugin = {
  name: 'node-shims',
  setup(bundler) {
    const shims: Record<string, string> = { stream: resolveFromHere('stream-browserify'), events: resolveFromHere('events/') };
    bundler.onResolve({ filter: /^(stream|events)$/ }, (args) => ({ path: shims[args.path] }));
  },
};

/**
 * `process` injected from the process package's browser build, `Buffer` from the buffer package (buffer-shim.js says
 * why), and `global` as `globalThis`.
 */
export const processShim: Pick<BuildOptions, 'inject' | 'define'> = {
  inject: [fileURLToPath(new URL('process-shim.js', import.meta.url)), fileURLToPath(new URL('buffer-shim.js', import.meta.url))],
  define: { global: 'globalThis' },
};
