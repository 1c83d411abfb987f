// Where a client store keeps its entries, behind one small interface so the SDK runs wherever a wallet does: files
// in Node (node/file-storage.ts), localStorage in a browser, memory for a page that keeps nothing, or the wallet's
// own (its encrypted database, a keychain). Entries are named like paths ('swaps/<id>.json', 'rescue-key.json',
// 'refunds/<id>.png'); values are JSON text, refund pictures bytes.
//
// Synchronous on purpose: a swap's key index is taken and written down before the key is used, and records are saved
// at the step that makes them, in flows that must not interleave with another writer between a read and its write.
// That is why the browser storage is localStorage (synchronous) and not IndexedDB (asynchronous only): IndexedDB
// would turn every store call, and every flow above it, asynchronous. A wallet with an asynchronous database keeps a
// synchronous cache in front of it and implements this interface over the cache.

export interface ClientStorage {
  /** Where the entries live, for messages: a directory, 'localStorage ferry-client/', 'memory'. */
  readonly location: string;
  /** The text of entry `name`; undefined when there is none. */
  read(name: string): string | undefined;
  /** Writes entry `name` whole, replacing what was there, atomically; returns where it went (a path, a key). */
  write(name: string, content: string | Uint8Array): string;
  /** The names (without the folder) of the entries directly in `folder`, e.g. list('swaps') → ['Ab12.json']. */
  list(folder: string): string[];
  /**
   * Runs `fn` with no other writer of entry `name` in between — across processes for files. Without it the store
   * relies on its caller being the only writer (one page, one process).
   */
  exclusively?<T>(name: string, fn: () => T): T;
}

const folderOf = (name: string): string => name.slice(0, Math.max(0, name.lastIndexOf('/')));
const baseOf = (name: string): string => name.slice(name.lastIndexOf('/') + 1);

/** Entries in a Map: for tests, a page that keeps nothing, or a wallet that persists `entries` itself. */
export class MemoryStorage implements ClientStorage {
  readonly location = 'memory';
  readonly entries = new Map<string, string | Uint8Array>();

  read(name: string): string | undefined {
    const value = this.entries.get(name);
    return typeof value === 'string' ? value : value === undefined ? undefined : new TextDecoder().decode(value);
  }

  write(name: string, content: string | Uint8Array): string {
    this.entries.set(name, typeof content === 'string' ? content : content.slice());
    return name;
  }

  list(folder: string): string[] {
    return [...this.entries.keys()].filter((name) => folderOf(name) === folder).map(baseOf);
  }
}

/** The part of the Web Storage API (window.localStorage) this uses. */
export interface WebStorageLike {
  readonly length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/**
 * Entries in the browser's localStorage under a prefix (default 'ferry-client/'). Bytes (the refund PNG) are kept as
 * a data: URL, which a page can show or offer as a download as it is. localStorage is per origin and shared by its
 * tabs; a key index is read and written within one synchronous call, so one tab never hands it out twice, but two
 * tabs of the same wallet creating swaps at the same moment are not kept apart (the Web Locks API is asynchronous).
 */
export class BrowserStorage implements ClientStorage {
  readonly location: string;
  private readonly web: WebStorageLike;

  constructor(
    private readonly prefix = 'ferry-client/',
    web?: WebStorageLike,
  ) {
    const found = web ?? (globalThis as { localStorage?: WebStorageLike }).localStorage;
    if (found === undefined) throw new Error('no localStorage here: pass a Web Storage object, or use another ClientStorage');
    this.web = found;
    this.location = `localStorage ${prefix}`;
  }

  read(name: string): string | undefined {
    return this.web.getItem(this.prefix + name) ?? undefined;
  }

  write(name: string, content: string | Uint8Array): string {
    const value = typeof content === 'string' ? content : `data:${name.endsWith('.png') ? 'image/png' : 'application/octet-stream'};base64,${base64(content)}`;
    // setItem throws QuotaExceededError when the origin's storage is full: the caller sees it, nothing is half written.
    this.web.setItem(this.prefix + name, value);
    return this.prefix + name;
  }

  list(folder: string): string[] {
    const names: string[] = [];
    for (let i = 0; i < this.web.length; i++) {
      const key = this.web.key(i);
      if (key === null || !key.startsWith(this.prefix)) continue;
      const name = key.slice(this.prefix.length);
      if (folderOf(name) === folder) names.push(baseOf(name));
    }
    return names;
  }
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
