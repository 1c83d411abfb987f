// Reads what the contract observer (test/contracts/install.ts) wrote during a test run: prints the contract
// operations the run exercised per face, and every violation; returns whether there were none.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export function contractReport(dir) {
  const covered = new Map();
  const violations = [];
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), 'utf8');
    if (name.startsWith('coverage-')) {
      for (const [key, count] of Object.entries(JSON.parse(text))) covered.set(key, (covered.get(key) ?? 0) + count);
    } else if (name.startsWith('violations-')) {
      for (const line of text.split('\n').filter(Boolean)) violations.push(JSON.parse(line));
    }
  }
  const byFace = new Map();
  for (const [key, count] of covered) {
    const [face, operation] = key.split('\t');
    if (!byFace.has(face)) byFace.set(face, []);
    byFace.get(face).push(`${operation} (${count})`);
  }
  console.log('\n# Contract coverage: the operations the tests exercised, checked against the vendored contracts');
  for (const [face, operations] of [...byFace].sort()) console.log(`#   ${face}: ${operations.length} — ${operations.sort().join(', ')}`);
  if (violations.length === 0) {
    console.log('# Contract violations: none');
    return true;
  }
  const seen = new Set();
  console.log(`# Contract violations: ${violations.length}`);
  for (const v of violations) {
    const text = `${v.face} ${v.node} ${v.method} ${v.path} — ${v.violations.join('; ')} (${v.where})`;
    if (seen.has(text)) continue;
    seen.add(text);
    console.log(`#   ${text}`);
  }
  return false;
}
