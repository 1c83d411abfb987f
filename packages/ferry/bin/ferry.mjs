#!/usr/bin/env node
// Ferry runs its TypeScript sources through tsx: no build step between a clone and `npm start`.
import { register } from 'tsx/esm/api';

// A test run starts every node process with `--import tsx` (NODE_OPTIONS, inherited by child processes): the
// sources load already, and a second registration would pass every module through tsx's hooks twice (~0.13 s of CPU
// per `ferry` command, which the CLI tests run hundreds of).
const importsTsx = (process.env.NODE_OPTIONS ?? '').split(/\s+/).some((option, i, all) => option === 'tsx' && all[i - 1] === '--import');
if (!importsTsx) register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv.slice(2));
