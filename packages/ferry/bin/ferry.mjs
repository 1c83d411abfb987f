#!/usr/bin/env node
// Ferry runs its TypeScript sources through tsx: no build step between a clone and `npm start`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv.slice(2));
