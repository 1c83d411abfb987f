// The client store: one JSON file per swap under <dir>/swaps (contract-chain swaps, RBTC, under
// <dir>/contract-swaps: their records have another shape), refund files under <dir>/refunds. Keys and
// preimages live here, so files are 0600 in a 0700 directory and every write is atomic (write, then rename):
// a swap survives its command being killed at any point.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ContractRecord, SwapRecord } from './records.ts';
import { RescueKey } from './rescue-key.ts';

/** What rescue-key.json holds: the mnemonic and the next key index to hand out. */
interface RescueKeyFile {
  mnemonic: string;
  nextIndex: number;
}

const SAFE_ID = /^[A-Za-z0-9]{1,64}$/;

/** FERRY_CLIENT_DIR, else ~/.ferry-client. */
export function defaultClientDir(env: Record<string, string | undefined> = process.env): string {
  return env.FERRY_CLIENT_DIR || join(homedir(), '.ferry-client');
}

/** Writes a file readable by its owner only, atomically. */
export function writePrivateFile(path: string, content: string | Uint8Array): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  chmodSync(temporary, 0o600); // the umask may have taken bits away, never added: make it exact
  renameSync(temporary, path);
}

export class ClientStore {
  readonly dir: string;
  readonly swapsDir: string;
  readonly refundsDir: string;
  readonly contractSwapsDir: string;

  constructor(dir: string) {
    this.dir = dir;
    this.swapsDir = join(dir, 'swaps');
    this.refundsDir = join(dir, 'refunds');
    this.contractSwapsDir = join(dir, 'contract-swaps');
    for (const path of [dir, this.swapsDir, this.refundsDir, this.contractSwapsDir]) {
      mkdirSync(path, { recursive: true, mode: 0o700 });
      chmodSync(path, 0o700);
    }
  }

  private path(id: string): string {
    if (!SAFE_ID.test(id)) throw new Error(`not a swap id: ${JSON.stringify(id)}`);
    return join(this.swapsDir, `${id}.json`);
  }

  save(record: SwapRecord): void {
    writePrivateFile(this.path(record.id), JSON.stringify(record, null, 2) + '\n');
  }

  has(id: string): boolean {
    return SAFE_ID.test(id) && existsSync(this.path(id));
  }

  load(id: string): SwapRecord {
    const path = this.path(id);
    if (!existsSync(path)) throw new Error(`no swap ${id} in the client store ${this.dir}`);
    return JSON.parse(readFileSync(path, 'utf8')) as SwapRecord;
  }

  /** Every stored swap, oldest first. */
  list(): SwapRecord[] {
    return readdirSync(this.swapsDir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(readFileSync(join(this.swapsDir, name), 'utf8')) as SwapRecord)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  private get rescuePath(): string {
    return join(this.dir, 'rescue-key.json');
  }

  private readRescue(): RescueKeyFile | undefined {
    return existsSync(this.rescuePath) ? (JSON.parse(readFileSync(this.rescuePath, 'utf8')) as RescueKeyFile) : undefined;
  }

  private writeRescue(file: RescueKeyFile): void {
    writePrivateFile(this.rescuePath, JSON.stringify(file, null, 2) + '\n');
  }

  /** The store's rescue key, made on first use: every swap's key derives from it. */
  rescueKey(): RescueKey {
    const known = this.readRescue();
    if (known) return RescueKey.fromMnemonic(known.mnemonic);
    const key = RescueKey.generate();
    this.writeRescue({ mnemonic: key.mnemonic, nextIndex: 0 });
    return key;
  }

  /** Adopts a rescue key (e.g. the one a restore used) when the store has none yet; false when it has another. */
  adoptRescueKey(key: RescueKey): boolean {
    const known = this.readRescue();
    if (known) return known.mnemonic === key.mnemonic;
    this.writeRescue({ mnemonic: key.mnemonic, nextIndex: 0 });
    return true;
  }

  /** Hands out the next key index, written down before it is used so no two swaps share a key. */
  takeKeyIndex(): number {
    this.rescueKey();
    return this.exclusively(() => {
      const file = this.readRescue()!;
      this.writeRescue({ ...file, nextIndex: file.nextIndex + 1 });
      return file.nextIndex;
    });
  }

  /**
   * Runs `fn` holding rescue-key.json.lock (created exclusively), so two `ferry swap` commands at once never take the
   * same index; a lock left by a killed command is broken after 10 s.
   */
  private exclusively<T>(fn: () => T): T {
    const lock = `${this.rescuePath}.lock`;
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        closeSync(openSync(lock, 'wx', 0o600));
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const held = statSync(lock, { throwIfNoEntry: false });
        if (held === undefined) continue; // released meanwhile: try again at once
        if (Date.now() - held.mtimeMs > 10_000 || Date.now() > deadline) rmSync(lock, { force: true });
        else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // a synchronous 5 ms pause
      }
    }
    try {
      return fn();
    } finally {
      rmSync(lock, { force: true });
    }
  }

  /** Makes sure no index up to `index` is handed out again (after a restore found swaps up to it). */
  reserveKeyIndex(index: number): void {
    const file = this.readRescue();
    if (file && file.nextIndex <= index) this.writeRescue({ ...file, nextIndex: index + 1 });
  }

  /** Where the refund files of a swap go (without extension). */
  refundFileBase(id: string): string {
    if (!SAFE_ID.test(id)) throw new Error(`not a swap id: ${JSON.stringify(id)}`);
    return join(this.refundsDir, id);
  }

  private contractPath(id: string): string {
    if (!SAFE_ID.test(id)) throw new Error(`not a swap id: ${JSON.stringify(id)}`);
    return join(this.contractSwapsDir, `${id}.json`);
  }

  saveContract(record: ContractRecord): void {
    writePrivateFile(this.contractPath(record.id), JSON.stringify(record, null, 2) + '\n');
  }

  hasContract(id: string): boolean {
    return SAFE_ID.test(id) && existsSync(this.contractPath(id));
  }

  loadContract(id: string): ContractRecord {
    const path = this.contractPath(id);
    if (!existsSync(path)) throw new Error(`no contract swap ${id} in the client store ${this.dir}`);
    return JSON.parse(readFileSync(path, 'utf8')) as ContractRecord;
  }

  /** Every stored contract-chain swap, oldest first. */
  listContracts(): ContractRecord[] {
    return readdirSync(this.contractSwapsDir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(readFileSync(join(this.contractSwapsDir, name), 'utf8')) as ContractRecord)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }
}
