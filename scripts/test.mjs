#!/usr/bin/env node
// Runs every package's test/**/*.test.ts with node's test runner (Node 20 has no glob for --test), package by
// package (the SDK, the devnet, the service), each from its own directory, then the service's swap files that drive
// Ferry's Lightning node a second time with Ferry on Core Lightning (FERRY_TEST_LIGHTNING=cln): the backend matrix.
// FERRY_TEST_LIGHTNING set by the caller runs everything on that backend once. Arguments keep the files whose path
// from the root contains one of them.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { availableParallelism } from 'node:os';
import { contractReport } from '../packages/ferry/scripts/contract-report.mjs';
import { readTimings, runJobs, writeTimings } from './test-jobs.mjs';
import { testBundles } from './test-bundles.mjs';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const PACKAGES = ['packages/sdk', 'packages/devnet', 'packages/ferry'];
const SERVICE = 'packages/ferry';
const filters = process.argv.slice(2);
const allFiles = PACKAGES.flatMap((dir) => collect(join(dir, 'test')));
const files = allFiles.filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// The Lightning-facing files (their swaps involve Ferry's Lightning node) say so with a `// @lightning-matrix` line
// of their own: a new one joins the Core Lightning pass without an edit here. The `ferry swap` CLI files carry none:
// they drive the client SDK and API that test/client/ runs on both nodes, and their child processes make them the
// slowest files (each passes on CLN alone; the CI budget is what keeps them to one pass).
const LIGHTNING_MARKER = /^\/\/ @lightning-matrix\b/m;
const inLightningMatrix = (file) => LIGHTNING_MARKER.test(readFileSync(file, 'utf8'));

// Every test process, and every node process a test starts, loads tsx and the contract observer (install.mjs):
// each exchange with a devnet node is checked against the real daemon's published contract (test/contracts/), and
// a violation anywhere fails the run. The test files and the `ferry` processes they start run JavaScript bundles
// built here (scripts/test-bundles.mjs, all test files at once, so a later run of a few reuses the build), without
// tsx; FERRY_TEST_BUNDLES=off runs them from the sources.
const reportDir = mkdtempSync(join(tmpdir(), 'ferry-contracts-'));
const preload = pathToFileURL(resolve(SERVICE, 'test/contracts/install.mjs')).href;
const bundles = process.env.FERRY_TEST_BUNDLES === 'off' ? undefined : await testBundles(allFiles);
const contractEnv = {
  FERRY_CONTRACT_REPORT: reportDir,
  NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import ${preload}`].filter(Boolean).join(' '),
  FERRY_TEST_BUNDLES: bundles ?? '',
};

// The real-node world (test/real-nodes/) runs real lightningd daemons: prepared once here (unpacked from
// ../shared/real-nodes/ or FERRY_REAL_NODES_DIR); without them its files skip, saying why.
const realNodes = {};
if (files.some((f) => f.includes(join('test', 'real-nodes'))) && process.env.FERRY_REAL_LIGHTNINGD === undefined) {
  const prepared = spawnSync(process.execPath, ['scripts/real-nodes.mjs'], { cwd: SERVICE, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const line = (prepared.stdout ?? '').trim().split('\n').at(-1) ?? '';
  if (prepared.status !== 0) {
    console.error('scripts/real-nodes.mjs could not prepare the real daemons');
    process.exit(1);
  }
  realNodes.FERRY_REAL_LIGHTNINGD = line.startsWith('skip=') ? line : line.replace(/^lightningd=/, '');
  if (line.startsWith('skip=')) console.log(`# real-node tests skip: ${line.slice(5)}`);
}

// The browser tests (test/browser/, and the swap page's in test/page/) drive Debian's Chromium: installed here once, before the test processes start
// (scripts/chromium.mjs); where it cannot be installed they skip, saying why.
const browser = {};
if (files.some((f) => f.includes(join('test', 'browser')) || f.includes(join('test', 'page'))) && process.env.FERRY_BROWSER === undefined) {
  const prepared = spawnSync(process.execPath, ['scripts/chromium.mjs'], { cwd: SERVICE, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const line = (prepared.stdout ?? '').trim().split('\n').at(-1) ?? '';
  if (prepared.status !== 0) {
    console.error('scripts/chromium.mjs could not prepare Chromium');
    process.exit(1);
  }
  browser.FERRY_BROWSER = line;
  if (line.startsWith('skip=')) console.log(`# browser tests skip: ${line.slice(5)}`);
}

const timingsFile = resolve('scripts/test-timings.json');
const jobs = files.map((file) => ({ file, lightning: process.env.FERRY_TEST_LIGHTNING ?? 'lnd' }));
if (process.env.FERRY_TEST_LIGHTNING === undefined) jobs.push(...files.filter(inLightningMatrix).map((file) => ({ file, lightning: 'cln' })));
const result = await runJobs(jobs, {
  packages: PACKAGES,
  env: { ...contractEnv, ...realNodes, ...browser },
  bundles,
  timings: readTimings(timingsFile),
  parallel: Number(process.env.FERRY_TEST_JOBS ?? Math.max(2, availableParallelism())),
});
if (process.env.FERRY_TEST_TIMINGS === 'write') writeTimings(timingsFile, result.timings);
const conforms = contractReport(reportDir);
rmSync(reportDir, { recursive: true, force: true });
process.exit(result.failed.length > 0 || !conforms ? 1 : 0);
