// Keeps the network's state in <dataDir>/lightning/state.json. Every change rewrites the file through a
// temporary file and a rename, so a crash leaves either the old state or the new one, never half of one.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NetworkState } from './types.ts';

export class StateStore {
  readonly path: string;

  constructor(dataDir: string) {
    const dir = join(dataDir, 'lightning');
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, 'state.json');
  }

  load(): NetworkState | undefined {
    if (!existsSync(this.path)) return undefined;
    const state = JSON.parse(readFileSync(this.path, 'utf8')) as NetworkState;
    if (state.version !== 1) throw new Error(`unsupported lightning state version in ${this.path}`);
    return state;
  }

  save(state: NetworkState): void {
    const tmp = this.path + '.tmp';
    writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
