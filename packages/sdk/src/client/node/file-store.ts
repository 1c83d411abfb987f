// The client store in files, for Node: <dir>/swaps/<id>.json, contract-swaps/, refunds/<id>.json and .png,
// rescue-key.json. Keys and preimages live here, so files are 0600 in 0700 directories and every write is atomic
// (write, then rename): a swap survives its command being killed at any point.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ClientStore } from '../store.ts';
import type { ClientStorage } from '../storage.ts';

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

function privateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}

/** A ClientStorage of files under `dir`: an entry 'swaps/x.json' is the file <dir>/swaps/x.json. */
export class FileStorage implements ClientStorage {
  readonly location: string;

  constructor(readonly dir: string) {
    this.location = dir;
    privateDir(dir);
  }

  private path(name: string): string {
    if (name.split('/').some((part) => part === '' || part === '.' || part === '..')) throw new Error(`not a store entry: ${JSON.stringify(name)}`);
    return join(this.dir, ...name.split('/'));
  }

  read(name: string): string | undefined {
    const path = this.path(name);
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  }

  write(name: string, content: string | Uint8Array): string {
    const path = this.path(name);
    if (!existsSync(dirname(path))) privateDir(dirname(path));
    writePrivateFile(path, content);
    return path;
  }

  list(folder: string): string[] {
    const path = this.path(folder);
    return existsSync(path) ? readdirSync(path) : [];
  }

  /**
   * Runs `fn` holding <entry>.lock (created exclusively), so two `ferry swap` commands at once never take the same
   * key index; a lock left by a killed command is broken after 10 s.
   */
  exclusively<T>(name: string, fn: () => T): T {
    const lock = `${this.path(name)}.lock`;
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
}

/** A ClientStore in files under `dir`, its folders made (0700) up front. */
export class FileClientStore extends ClientStore {
  readonly dir: string;
  readonly swapsDir: string;
  readonly refundsDir: string;
  readonly contractSwapsDir: string;

  constructor(dir: string) {
    super(new FileStorage(dir));
    this.dir = dir;
    this.swapsDir = join(dir, 'swaps');
    this.refundsDir = join(dir, 'refunds');
    this.contractSwapsDir = join(dir, 'contract-swaps');
    for (const path of [this.swapsDir, this.refundsDir, this.contractSwapsDir]) privateDir(path);
  }
}
