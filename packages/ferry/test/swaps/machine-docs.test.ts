// docs/state-machines.md is generated from the machine tables; this fails when someone changes a table
// without regenerating (node --import tsx src/swaps/write-diagrams.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderMermaid, renderStateMachinesDoc } from '../../src/swaps/diagram.ts';
import { chainMachine, reverseMachine, submarineMachine, type AnyMachine } from '../../src/swaps/index.ts';

test('docs/state-machines.md is up to date with the machine tables', () => {
  const onDisk = readFileSync(new URL('../../../../docs/state-machines.md', import.meta.url), 'utf8');
  assert.equal(onDisk, renderStateMachinesDoc(), 'regenerate with: node --import tsx packages/ferry/src/swaps/write-diagrams.ts (from the root)');
});

test('every row of each machine appears as an edge of its diagram', () => {
  for (const machine of [submarineMachine, reverseMachine, chainMachine] as AnyMachine[]) {
    const diagram = renderMermaid(machine);
    for (const row of machine.rows) {
      const edge = `${row.from.replace(/\./g, '_')} --> ${row.to.replace(/\./g, '_')} : ${row.event}`;
      assert.ok(diagram.includes(edge), `missing ${edge}`);
    }
  }
});
