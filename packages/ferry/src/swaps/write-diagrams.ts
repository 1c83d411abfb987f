// Writes docs/state-machines.md from the machine tables: `node --import tsx src/swaps/write-diagrams.ts`.
import { writeFileSync } from 'node:fs';
import { renderStateMachinesDoc } from './diagram.ts';

writeFileSync(new URL('../../../../docs/state-machines.md', import.meta.url), renderStateMachinesDoc());
