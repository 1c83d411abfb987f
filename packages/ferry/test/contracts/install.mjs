// Loaded into every node process of a test run (NODE_OPTIONS --import, set by scripts/test.mjs), child processes
// included: registers tsx, so TypeScript sources load, and installs the contract observer (observe.ts) on the main
// thread. A process that runs one of the run's JavaScript bundles (FERRY_TEST_BUNDLES, scripts/test-bundles.mjs:
// a test file, the `ferry` command) gets no tsx: its hooks alone cost a `ferry` child about a third of its CPU. The observer is
// the bundle's when there is one (plain JavaScript), observe.ts through tsx otherwise. Nothing on worker threads but
// tsx: workers inherit NODE_OPTIONS, and esbuild's transformSync runs in a worker that tsx's loader waits on
// synchronously — a TypeScript preload there would wait on itself.
import { isMainThread } from 'node:worker_threads';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const bundles = process.env.FERRY_TEST_BUNDLES ?? '';
const built = isAbsolute(bundles);
const runsBundle = built && (process.argv[1] ?? '').startsWith(bundles + '/');
if (!runsBundle) await import('tsx');
if (isMainThread && (process.env.FERRY_CONTRACT_REPORT ?? '') !== '') {
  await import(built ? pathToFileURL(join(bundles, 'packages/ferry/test/contracts/observe.js')).href : './observe.ts');
}
