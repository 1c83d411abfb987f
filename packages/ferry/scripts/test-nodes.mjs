#!/usr/bin/env node
// `npm run test:nodes`: the swap scenarios against real regtest daemons, opt-in. With a nodes file (--nodes FILE,
// FERRY_NODES_FILE, or its text in FERRY_NODES) it runs test/nodes/real-nodes.ts with node's test runner; with
// --devnet it runs the same suite against a `ferry devnet` process through the external path
// (test/nodes/devnet.test.ts, which `npm test` runs too); with neither it prints what it needs and exits 0, having run
// nothing. --lightning cln runs the --devnet mode with Ferry on the devnet's Core Lightning node.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { register } from 'tsx/esm/api';

const usage = `usage: npm run test:nodes -- [--nodes FILE | --devnet [--lightning lnd|cln]]

Runs Ferry's swap scenarios (submarine, reverse and chain swaps on each configured chain) against real regtest
daemons: \`ferry start\` as a child process with a config file written from the nodes file, the user's side played
with the client SDK. Every chain must be regtest: the suite mines blocks and spends the user's coins.
The nodes file (TOML or JSON): --nodes FILE, FERRY_NODES_FILE=FILE, or the file's text in FERRY_NODES.
--devnet runs the same suite against \`ferry devnet\` (its nodes written into a nodes file from devnet.json).
Details: docs/node-suite.md.`;

const args = process.argv.slice(2);
let file = process.env.FERRY_NODES_FILE;
let devnet = false;
let lightning;
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--nodes' && args[i + 1] !== undefined) file = args[++i];
  else if (arg.startsWith('--nodes=')) file = arg.slice('--nodes='.length);
  else if (arg === '--devnet') devnet = true;
  else if (arg === '--lightning' && (args[i + 1] === 'lnd' || args[i + 1] === 'cln')) lightning = args[++i];
  else if (arg === '--help' || arg === '-h') {
    console.log(usage);
    process.exit(0);
  } else {
    console.error(`unknown argument: ${arg}\n\n${usage}`);
    process.exit(2);
  }
}
if (devnet && file !== undefined) {
  console.error('give --nodes FILE or --devnet, not both');
  process.exit(2);
}

const runTests = (testFile, env) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', testFile], {
    stdio: 'inherit',
    cwd: resolve(import.meta.dirname, '..'), // the service package: its tests read paths from there
    env: { ...process.env, ...env },
  }).status ?? 1;

if (devnet) process.exit(runTests('test/nodes/devnet.test.ts', lightning ? { FERRY_TEST_LIGHTNING: lightning } : {}));

// The nodes file is read here first, so a mistake in it is one line naming the key, not a failed test run.
register();
const { NODES_EXAMPLE, NodesFileError, nodesFromEnvironment } = await import('../test/nodes/nodes-file.ts');
let nodes;
try {
  nodes = nodesFromEnvironment(file === undefined ? process.env : { FERRY_NODES_FILE: resolve(file) });
} catch (error) {
  if (!(error instanceof NodesFileError)) throw error;
  console.error(error.message);
  process.exit(2);
}
if (nodes === undefined) {
  console.log(`${usage}\n\nNo nodes configured: nothing was run. A nodes file looks like this:\n\n${NODES_EXAMPLE}`);
  process.exit(0);
}
process.exit(runTests('test/nodes/real-nodes.ts', file === undefined ? {} : { FERRY_NODES_FILE: resolve(file) }));
