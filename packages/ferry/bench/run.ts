// `npm run bench`: every benchmark, each printing its numbers next to a baseline measured in the same run.
import { benchVerify } from './verify.ts';
import { benchSwaps } from './swaps.ts';
import { benchWatcher } from './watcher.ts';
import { benchRestore } from './restore.ts';
import { benchWsMemory } from './ws-memory.ts';
import { benchWsFanout, benchWsIdle } from './ws-fanout.ts';
import { benchCreation } from './creation.ts';
import { benchInstances } from './instances.ts';
import { benchStatusReads } from './status-reads.ts';
import { benchHoldInvoices } from './hold-invoices.ts';

const benches: [string, () => Promise<string[]>][] = [
  ['devnet transaction verification (bitcoin, liquid)', benchVerify],
  ['chain watcher', benchWatcher],
  ['swap API by type, in-process fetch client (relative figures only)', benchSwaps],
  ['restore on a large store', benchRestore],
  ['WebSocket subscription memory', benchWsMemory],
  ['ws-fanout: one status change to many subscribers', benchWsFanout],
  ['ws-idle: RSS per idle WebSocket client', benchWsIdle],
  ['creation: swaps created per second, load from another process', benchCreation],
  ['status reads: GET /v2/swap/{id} on SQLite and PostgreSQL next to bare node:http, load from another process', benchStatusReads],
  ['instances: status reads on 2 instances against 1 (PostgreSQL)', benchInstances],
  ["hold invoices: the devnet Lightning node's CPU per hold invoice, next to an older tree's", benchHoldInvoices],
];

const only = process.argv.slice(2);
for (const [name, run] of benches) {
  if (only.length > 0 && !only.some((o) => name.includes(o))) continue;
  console.log(`== ${name}`);
  for (const line of await run()) console.log('  ' + line);
}
