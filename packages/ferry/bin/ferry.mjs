#!/usr/bin/env node
// Ferry runs its TypeScript sources through tsx: no build step between a clone and `npm start`.
import { register } from 'tsx/esm/api';

// A test run starts every node process with a preload that registers tsx (NODE_OPTIONS, inherited by child
// processes: `--import tsx`, or the test run's test/contracts/install.mjs, which imports it): the sources load
// already, and a second registration would pass every module through tsx's hooks twice (~0.13 s of CPU per `ferry`
// command, which the CLI tests run hundreds of).
const importsTsx = (process.env.NODE_OPTIONS ?? '')
  .split(/\s+/)
  .some((option, i, all) => all[i - 1] === '--import' && (option === 'tsx' || option.endsWith('/test/contracts/install.mjs')));
if (!importsTsx) register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv.slice(2));
