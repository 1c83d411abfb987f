// Persistence in <dataDir>/bitcoin/node.sqlite: blocks (raw, with their active/invalid status), the
// mempool, wallets and their issued keys, and small settings (RPC credentials). Every state change is
// one SQLite transaction, so a crash leaves either the old or the new state.
import Database from 'better-sqlite3';
import { privateSqliteFile } from '@ferry/sdk/fs/private.js';

export interface StoredBlock {
  hash: string;
  height: number;
  raw: Uint8Array;
  active: boolean;
}

export interface StoredWallet {
  name: string;
  seed: Uint8Array;
  loaded: boolean;
}

export interface StoredKey {
  kind: string;
  branch: number; // 0 receive, 1 change
  index: number;
  script: Uint8Array;
  publicKey: Uint8Array;
  label: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blocks (hash TEXT PRIMARY KEY, height INTEGER NOT NULL, raw BLOB NOT NULL, active INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS blocks_active_height ON blocks (active, height);
CREATE TABLE IF NOT EXISTS mempool (seq INTEGER PRIMARY KEY AUTOINCREMENT, txid TEXT NOT NULL UNIQUE, raw BLOB NOT NULL, time INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS wallets (name TEXT PRIMARY KEY, seed BLOB NOT NULL, loaded INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS wallet_keys (
  wallet TEXT NOT NULL, kind TEXT NOT NULL, branch INTEGER NOT NULL, idx INTEGER NOT NULL,
  script BLOB NOT NULL, pubkey BLOB NOT NULL, label TEXT NOT NULL,
  PRIMARY KEY (wallet, kind, branch, idx)
);
`;

const bytes = (value: unknown): Uint8Array => new Uint8Array(value as Buffer);

export class NodeStore {
  private readonly db: Database.Database;

  constructor(path: string) {
    privateSqliteFile(path); // the devnet's wallets' keys are in it
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
  }

  close(): void {
    this.db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  getMeta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  blocks(): StoredBlock[] {
    const rows = this.db.prepare('SELECT hash, height, raw, active FROM blocks ORDER BY active DESC, height').all() as {
      hash: string;
      height: number;
      raw: Buffer;
      active: number;
    }[];
    return rows.map((row) => ({ hash: row.hash, height: row.height, raw: bytes(row.raw), active: row.active === 1 }));
  }

  putBlock(hash: string, height: number, raw: Uint8Array): void {
    this.db
      .prepare('INSERT INTO blocks (hash, height, raw, active) VALUES (?, ?, ?, 1) ON CONFLICT (hash) DO UPDATE SET active = 1')
      .run(hash, height, raw);
  }

  markInvalid(hash: string): void {
    this.db.prepare('UPDATE blocks SET active = 0 WHERE hash = ?').run(hash);
  }

  mempool(): { raw: Uint8Array; time: number }[] {
    const rows = this.db.prepare('SELECT raw, time FROM mempool ORDER BY seq').all() as { raw: Buffer; time: number }[];
    return rows.map((row) => ({ raw: bytes(row.raw), time: row.time }));
  }

  addMempoolTx(txid: string, raw: Uint8Array, time: number): void {
    this.db.prepare('INSERT OR IGNORE INTO mempool (txid, raw, time) VALUES (?, ?, ?)').run(txid, raw, time);
  }

  removeMempoolTx(txid: string): void {
    this.db.prepare('DELETE FROM mempool WHERE txid = ?').run(txid);
  }

  clearMempool(): void {
    this.db.prepare('DELETE FROM mempool').run();
  }

  wallets(): StoredWallet[] {
    const rows = this.db.prepare('SELECT name, seed, loaded FROM wallets ORDER BY rowid').all() as {
      name: string;
      seed: Buffer;
      loaded: number;
    }[];
    return rows.map((row) => ({ name: row.name, seed: bytes(row.seed), loaded: row.loaded === 1 }));
  }

  addWallet(name: string, seed: Uint8Array): void {
    this.db.prepare('INSERT INTO wallets (name, seed, loaded) VALUES (?, ?, 1)').run(name, seed);
  }

  setWalletLoaded(name: string, loaded: boolean): void {
    this.db.prepare('UPDATE wallets SET loaded = ? WHERE name = ?').run(loaded ? 1 : 0, name);
  }

  walletKeys(wallet: string): StoredKey[] {
    const rows = this.db
      .prepare('SELECT kind, branch, idx, script, pubkey, label FROM wallet_keys WHERE wallet = ? ORDER BY kind, branch, idx')
      .all(wallet) as { kind: string; branch: number; idx: number; script: Buffer; pubkey: Buffer; label: string }[];
    return rows.map((row) => ({
      kind: row.kind,
      branch: row.branch,
      index: row.idx,
      script: bytes(row.script),
      publicKey: bytes(row.pubkey),
      label: row.label,
    }));
  }

  addWalletKey(wallet: string, key: StoredKey): void {
    this.db
      .prepare('INSERT INTO wallet_keys (wallet, kind, branch, idx, script, pubkey, label) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(wallet, key.kind, key.branch, key.index, key.script, key.publicKey, key.label);
  }
}
