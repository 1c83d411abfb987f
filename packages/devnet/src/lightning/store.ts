// Keeps the network's state in <dataDir>/lightning: a snapshot (state.json) and a journal of the changes made since
// (state.journal, one JSON line per change, journal.ts). Rewriting the whole state on every invoice cost more CPU
// than Ferry spends creating the swap the invoice is for, and grew with every invoice kept; a change is now one
// write(2) of its own records, done before the change is answered, so a change acknowledged to a client survives
// the devnet's process being killed, as it did with the rewrite (neither asks the disk to flush: a devnet outlives
// its process, not its machine). The snapshot is rewritten (through a temporary file and a rename) at every open,
// at close, and whenever the journal has grown past the snapshot's size (at least `compactAtBytes`), so the
// rewrites' cost per change stays flat however large the state grows. A last line cut short by a crash was never
// acknowledged, and is dropped when the journal is read.
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { replayChanges, type StateChange } from './journal.ts';
import type { NetworkState } from './types.ts';

export interface StateStoreOptions {
  /** The journal is folded into the snapshot once it is this large and larger than the snapshot (default 1 MiB). */
  compactAtBytes?: number;
}

export class StateStore {
  readonly path: string;
  readonly journalPath: string;
  private readonly compactAtBytes: number;
  private journal: number | undefined; // the journal's file descriptor, opened for appending
  private journalBytes = 0;
  private snapshotBytes = 0;

  constructor(dataDir: string, options: StateStoreOptions = {}) {
    const dir = join(dataDir, 'lightning');
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, 'state.json');
    this.journalPath = join(dir, 'state.journal');
    this.compactAtBytes = options.compactAtBytes ?? 1024 * 1024;
  }

  /** The snapshot with the journal's changes applied; undefined on a first start. */
  load(): NetworkState | undefined {
    const changes = this.readJournal();
    if (!existsSync(this.path)) {
      if (changes.length > 0) throw new Error(`${this.journalPath} has changes but ${this.path} is missing`);
      return undefined;
    }
    const state = JSON.parse(readFileSync(this.path, 'utf8')) as NetworkState;
    if (state.version !== 1) throw new Error(`unsupported lightning state version in ${this.path}`);
    replayChanges(state, changes);
    return state;
  }

  private readJournal(): StateChange[] {
    if (!existsSync(this.journalPath)) return [];
    const lines = readFileSync(this.journalPath, 'utf8').split('\n');
    lines.pop(); // after the last newline: empty, or a write cut short by a crash
    return lines.map((line, i) => {
      try {
        return JSON.parse(line) as StateChange;
      } catch {
        throw new Error(`${this.journalPath}: line ${i + 1} does not read as JSON`);
      }
    });
  }

  /** Writes one change; folds the journal into a snapshot of `state` when it has grown large enough. */
  append(change: StateChange, state: NetworkState): void {
    const line = Buffer.from(JSON.stringify(change) + '\n');
    this.journal ??= openSync(this.journalPath, 'a', 0o600);
    writeSync(this.journal, line);
    this.journalBytes += line.length;
    if (this.journalBytes >= Math.max(this.compactAtBytes, this.snapshotBytes)) this.compact(state);
  }

  /** Writes the whole state as the snapshot, then empties the journal. */
  compact(state: NetworkState): void {
    const text = Buffer.from(JSON.stringify(state));
    const tmp = this.path + '.tmp';
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, this.path);
    // O_APPEND writes go to the end, so truncating the open journal is enough to start it afresh.
    this.journal ??= openSync(this.journalPath, 'a', 0o600);
    ftruncateSync(this.journal);
    this.snapshotBytes = text.length;
    this.journalBytes = 0;
  }

  /** A last compaction, and the journal closed; a later change opens it again. */
  close(state: NetworkState): void {
    this.compact(state);
    if (this.journal !== undefined) closeSync(this.journal);
    this.journal = undefined;
  }
}
