// Loaded by install.mjs into the main thread of every test process: installs the devnet's exchange
// observer, checks each exchange against the vendored contracts (checkers.ts) and writes what it found to
// FERRY_CONTRACT_REPORT (a directory): violations at once, the operations exercised when the process exits.
// scripts/test.mjs reads them after the run and fails it on any violation.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setExchangeObserver } from '@ferry/devnet/contract-observer.js';
import { CHECKERS } from './checkers.ts';

const dir = process.env.FERRY_CONTRACT_REPORT;
if (dir !== undefined && dir !== '') {
  const covered = new Map<string, number>();
  const where = process.argv.slice(1).find((a) => a.endsWith('.ts') || a.endsWith('.mjs')) ?? process.argv[1] ?? '';
  setExchangeObserver((exchange) => {
    const checker = CHECKERS[exchange.face];
    if (checker === undefined) return;
    const { operation, violations } = checker(exchange);
    if (operation !== undefined) {
      const key = `${exchange.face}\t${operation}`;
      covered.set(key, (covered.get(key) ?? 0) + 1);
    }
    if (violations.length > 0) {
      const line = { face: exchange.face, node: exchange.node, method: exchange.method, path: exchange.path, operation, violations, where };
      appendFileSync(join(dir, `violations-${process.pid}.jsonl`), JSON.stringify(line) + '\n');
    }
  });
  process.on('exit', () => {
    if (covered.size === 0) return;
    writeFileSync(join(dir, `coverage-${process.pid}.json`), JSON.stringify(Object.fromEntries(covered)));
  });
}
