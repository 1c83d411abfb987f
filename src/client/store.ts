// The client store: one JSON file per swap under <dir>/swaps (contract-chain swaps, RBTC, under
// <dir>/contract-swaps: their records have another shape), refund files under <dir>/refunds. Keys and
// preimages live here, so files are 0600 in a 0700 directory and every write is atomic (write, then rename):
// a swap survives its command being killed at any point.
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ContractRecord, SwapRecord } from './records.ts';

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
