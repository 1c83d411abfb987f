// Renders the machines' tables as Mermaid state diagrams for docs/state-machines.md, so the documentation is
// generated from the code and cannot drift from it (a test compares the file with this output).
import type { AnyMachine } from '@ferry/sdk/swaps/machine.js';
import { chainFollowedStatuses } from '@ferry/sdk/swaps/derive.js';
import { MACHINES } from '@ferry/sdk/swaps/machines.js';

// Mermaid state ids cannot contain dots; the status string stays the visible label.
const stateId = (status: string): string => status.replace(/[^A-Za-z0-9]/g, '_');

export function renderMermaid(machine: AnyMachine): string {
  const lines = ['stateDiagram-v2'];
  for (const status of machine.statuses) lines.push(`  state "${status}" as ${stateId(status)}`);
  for (const status of machine.initial) lines.push(`  [*] --> ${stateId(status)}`);
  for (const row of machine.rows) {
    const guard = row.guard === undefined ? '' : ` [${machine.guards[row.guard].label}]`;
    const effects = row.effects.length === 0 ? '' : ` / ${row.effects.join(', ')}`;
    lines.push(`  ${stateId(row.from)} --> ${stateId(row.to)} : ${row.event}${guard}${effects}`);
  }
  for (const status of machine.final) lines.push(`  ${stateId(status)} --> [*]`);
  return lines.join('\n');
}

function renderTable(machine: AnyMachine): string {
  const lines = ['| From | Event | Guard | To | Effects |', '|---|---|---|---|---|'];
  for (const row of machine.rows) {
    const guard = row.guard === undefined ? '' : machine.guards[row.guard].label;
    lines.push(`| \`${row.from}\` | ${row.event} | ${guard} | \`${row.to}\` | ${row.effects.join(', ')} |`);
  }
  return lines.join('\n');
}

/** Which leg performs each effect, and the status sets read off the table. */
function renderFacts(machine: AnyMachine): string {
  const list = (statuses: readonly string[]) => statuses.map((status) => `\`${status}\``).join(', ');
  const lines = ['| Effect | Leg |', '|---|---|'];
  for (const effect of machine.effects) lines.push(`| ${effect} | ${machine.effectLegs[effect]} |`);
  lines.push(
    '',
    `Succeeded: ${list(machine.succeeded)}. Failed: ${list(machine.failed)}. Chain events: ${machine.chainEvents.join(', ')};`,
    `followed on chain in ${list(chainFollowedStatuses(machine))}.`,
  );
  return lines.join('\n');
}

export function renderStateMachinesDoc(): string {
  const parts = [
    '# Swap state machines',
    '',
    '<!-- Generated from packages/sdk/src/swaps/*-machine.ts by `node --import tsx packages/ferry/src/swaps/write-diagrams.ts`; do not edit. -->',
    '',
    'Each swap type is a table of (status, event) → next status and effects. Events the table does not list',
    'for a status are refused and change nothing. Rows with a guard apply only while the guard holds; for the',
    'same status and event the first matching row wins. Effects are written in the same database transaction',
    'as the status, performed after commit, and replayed after a crash.',
  ];
  for (const machine of Object.values(MACHINES)) {
    parts.push('', `## ${machine.name}`, '', '```mermaid', renderMermaid(machine), '```', '', renderTable(machine), '', renderFacts(machine));
  }
  return parts.join('\n') + '\n';
}
