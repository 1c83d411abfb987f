// Loaded into every test process by scripts/test.mjs (NODE_OPTIONS --import, after tsx): installs the contract
// observer (observe.ts) on the main thread of processes of a test run. Plain JavaScript, and nothing on worker
// threads: workers inherit NODE_OPTIONS, and esbuild's transformSync runs in a worker that tsx's loader waits on
// synchronously — a TypeScript preload there would wait on itself.
import { isMainThread } from 'node:worker_threads';

if (isMainThread && (process.env.FERRY_CONTRACT_REPORT ?? '') !== '') await import('./observe.ts');
