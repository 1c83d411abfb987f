#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's test runner (Node 20 has no glob for --test), then the swap files that
// drive Ferry's Lightning node a second time with Ferry on Core Lightning (FERRY_TEST_LIGHTNING=cln): the backend
// matrix. FERRY_TEST_LIGHTNING set by the caller runs everything on that backend once.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = collect('test').filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Lightning-facing swap files: submarine and reverse swaps on Bitcoin and Liquid, restarts and crashes (a payment
// in flight), two instances, invoice edge cases.
const LIGHTNING_MATRIX = [
  'test/swaps/crash.test.ts',
  'test/swaps/instances.test.ts',
  'test/engine/submarine.test.ts',
  'test/engine/reverse.test.ts',
  'test/engine/restart.test.ts',
  'test/engine/adversarial-invoices.test.ts',
  'test/engine/adversarial-settlement.test.ts',
  'test/swaps/scenarios/submarine.test.ts',
  'test/swaps/scenarios/reverse.test.ts',
  'test/swaps/scenarios/timeouts.test.ts',
  'test/swaps/scenarios/liquid-submarine.test.ts',
  'test/swaps/scenarios/liquid-reverse.test.ts',
];

const run = (list, env) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...list], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  }).status ?? 1;

let status = run(files, {});
const onCln = process.env.FERRY_TEST_LIGHTNING === undefined ? files.filter((f) => LIGHTNING_MATRIX.includes(f)) : [];
if (onCln.length > 0) {
  console.log(`\n# Lightning matrix: ${onCln.length} swap files again with Ferry on Core Lightning\n`);
  status = run(onCln, { FERRY_TEST_LIGHTNING: 'cln' }) || status;
}
process.exit(status);
