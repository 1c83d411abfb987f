// Swaps as rows. The columns are what lookups need (ids, hashes, invoices, addresses, status);
// everything else a swap type carries lives in `data`, a JSON object the domain owns.
import { isDatabase, type Queryable, type SqlValue } from '../types.ts';
import { parseObject, placeholderList, type Clock } from './common.ts';

export type SwapData = Record<string, unknown>;

export interface SwapRecord {
  id: string;
  /** 'submarine' | 'reverse' | 'chain' today; the domain defines the set. */
  type: string;
  pair: string;
  status: string;
  preimageHash: string;
  invoice: string | null;
  keyIndex: number | null;
  timeoutBlockHeight: number | null;
  lockupAddress: string | null;
  data: SwapData;
  /** 1 on insert, +1 on every update: lets a writer detect any change, not only a status change. */
  version: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
}

export interface NewSwap {
  id: string;
  type: string;
  pair: string;
  status: string;
  preimageHash: string;
  invoice?: string | null;
  keyIndex?: number | null;
  timeoutBlockHeight?: number | null;
  lockupAddress?: string | null;
  data?: SwapData;
  /** The keys the client gave (hex): restore finds the swap by them (table swap_client_keys). */
  clientPublicKeys?: readonly string[];
  /** The client's EVM addresses, lower case: restore by address finds the swap by them (table swap_client_addresses). */
  clientAddresses?: readonly string[];
}

/** A guarded change: applied only while the row still has `expectedStatus` (and `expectedVersion`). */
export interface SwapUpdate {
  id: string;
  expectedStatus: string;
  expectedVersion?: number;
  status?: string;
  /** Replaces the whole data object. */
  data?: SwapData;
  invoice?: string | null;
  lockupAddress?: string | null;
  timeoutBlockHeight?: number | null;
  /** Client EVM addresses the new data names (lower case): added to the index with the update, kept if known. */
  clientAddresses?: readonly string[];
}

interface SwapRow {
  id: string;
  type: string;
  pair: string;
  status: string;
  preimage_hash: string;
  invoice: string | null;
  key_index: number | null;
  timeout_block_height: number | null;
  lockup_address: string | null;
  data: string;
  version: number;
  created_at: number;
  updated_at: number;
}

function toRecord(row: SwapRow): SwapRecord {
  return {
    id: row.id,
    type: row.type,
    pair: row.pair,
    status: row.status,
    preimageHash: row.preimage_hash,
    invoice: row.invoice,
    keyIndex: row.key_index,
    timeoutBlockHeight: row.timeout_block_height,
    lockupAddress: row.lockup_address,
    data: parseObject(row.data),
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const ORDER = 'ORDER BY created_at, id';

export class SwapRepository {
  constructor(
    private readonly q: Queryable,
    private readonly now: Clock,
  ) {}

  /** Throws UniqueViolation (column id, preimage_hash or invoice) if the swap collides. */
  async insert(swap: NewSwap): Promise<SwapRecord> {
    const keys = [...new Set(swap.clientPublicKeys ?? [])];
    // The swap and its key rows together: a swap restore cannot find is a swap a wallet cannot get back.
    if ((keys.length === 0 && !swap.clientAddresses?.length) || !isDatabase(this.q)) return insertSwap(this.q, swap, keys, this.now());
    return this.q.transaction((tx) => insertSwap(tx, swap, keys, this.now()));
  }

  /**
   * Swaps created with any of these client keys, each with the key that matched (one row per key and swap),
   * oldest first. Through the primary key of swap_client_keys: no scan of swaps.
   */
  async findByClientKeys(publicKeys: readonly string[]): Promise<{ swap: SwapRecord; publicKey: string }[]> {
    if (publicKeys.length === 0) return [];
    const rows = await this.q.query<SwapRow & { client_key: string }>(
      `SELECT s.*, k.public_key AS client_key FROM swap_client_keys k JOIN swaps s ON s.id = k.swap_id
       WHERE k.public_key IN (${placeholderList(1, publicKeys.length)}) ORDER BY s.created_at, s.id`,
      publicKeys,
    );
    return rows.map((row) => ({ swap: toRecord(row), publicKey: row.client_key }));
  }

  /** Swaps naming this client EVM address (lower case), oldest first. Through the primary key of swap_client_addresses. */
  async findByClientAddress(address: string): Promise<SwapRecord[]> {
    const rows = await this.q.query<SwapRow>(
      `SELECT s.* FROM swap_client_addresses a JOIN swaps s ON s.id = a.swap_id WHERE a.address = $1 ORDER BY s.created_at, s.id`,
      [address],
    );
    return rows.map(toRecord);
  }

  get(id: string): Promise<SwapRecord | undefined> {
    return this.one('id = $1', [id]);
  }

  getByPreimageHash(preimageHash: string): Promise<SwapRecord | undefined> {
    return this.one('preimage_hash = $1', [preimageHash]);
  }

  getByInvoice(invoice: string): Promise<SwapRecord | undefined> {
    return this.one('invoice = $1', [invoice]);
  }

  /** Lockup addresses come from a fresh key per swap, so at most one swap has a given address. */
  getByLockupAddress(address: string): Promise<SwapRecord | undefined> {
    return this.one('lockup_address = $1', [address]);
  }

  /** Swaps whose status is one of `statuses`, oldest first. */
  async listByStatus(statuses: readonly string[], options: { limit?: number } = {}): Promise<SwapRecord[]> {
    if (statuses.length === 0) return [];
    const params: SqlValue[] = [...statuses];
    let sql = `SELECT * FROM swaps WHERE status IN (${placeholderList(1, statuses.length)}) ${ORDER}`;
    if (options.limit !== undefined) {
      params.push(options.limit);
      sql += ` LIMIT $${params.length}`;
    }
    return (await this.q.query<SwapRow>(sql, params)).map(toRecord);
  }

  /** All swaps, or those whose status is one of `statuses`. */
  async count(statuses?: readonly string[]): Promise<number> {
    if (statuses?.length === 0) return 0;
    const where = statuses ? ` WHERE status IN (${placeholderList(1, statuses.length)})` : '';
    const rows = await this.q.query<{ n: number }>(`SELECT COUNT(*) AS n FROM swaps${where}`, statuses ?? []);
    return rows[0].n;
  }

  /** False, and nothing written, if the swap is missing or no longer in the expected state. */
  async update(update: SwapUpdate): Promise<boolean> {
    return (await this.updateReturning(update)) !== undefined;
  }

  /** Like `update`, returning the updated swap, or undefined if the guard did not hold. */
  async updateReturning(update: SwapUpdate): Promise<SwapRecord | undefined> {
    const params: SqlValue[] = [update.id, update.expectedStatus, this.now()];
    const sets = ['version = version + 1', 'updated_at = $3'];
    const set = (column: string, value: SqlValue) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (update.status !== undefined) set('status', update.status);
    if (update.data !== undefined) set('data', JSON.stringify(update.data));
    if (update.invoice !== undefined) set('invoice', update.invoice);
    if (update.lockupAddress !== undefined) set('lockup_address', update.lockupAddress);
    if (update.timeoutBlockHeight !== undefined) set('timeout_block_height', update.timeoutBlockHeight);
    let where = 'id = $1 AND status = $2';
    if (update.expectedVersion !== undefined) {
      params.push(update.expectedVersion);
      where += ` AND version = $${params.length}`;
    }
    const rows = await this.q.query<SwapRow>(`UPDATE swaps SET ${sets.join(', ')} WHERE ${where} RETURNING *`, params);
    if (rows[0] && update.clientAddresses?.length) await addClientAddresses(this.q, update.id, update.clientAddresses);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  private async one(where: string, params: SqlValue[]): Promise<SwapRecord | undefined> {
    const rows = await this.q.query<SwapRow>(`SELECT * FROM swaps WHERE ${where} ${ORDER} LIMIT 1`, params);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }
}

async function insertSwap(q: Queryable, swap: NewSwap, keys: readonly string[], now: number): Promise<SwapRecord> {
  const rows = await q.query<SwapRow>(
    `INSERT INTO swaps (id, type, pair, status, preimage_hash, invoice, key_index, timeout_block_height,
       lockup_address, data, version, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1, $11, $11)
     RETURNING *`,
    [
      swap.id,
      swap.type,
      swap.pair,
      swap.status,
      swap.preimageHash,
      swap.invoice ?? null,
      swap.keyIndex ?? null,
      swap.timeoutBlockHeight ?? null,
      swap.lockupAddress ?? null,
      JSON.stringify(swap.data ?? {}),
      now,
    ],
  );
  for (const key of keys) await q.execute('INSERT INTO swap_client_keys (public_key, swap_id) VALUES ($1, $2)', [key, swap.id]);
  await addClientAddresses(q, swap.id, swap.clientAddresses ?? []);
  return toRecord(rows[0]);
}

async function addClientAddresses(q: Queryable, swapId: string, addresses: readonly string[]): Promise<void> {
  for (const address of new Set(addresses)) {
    await q.execute('INSERT INTO swap_client_addresses (address, swap_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [address.toLowerCase(), swapId]);
  }
}
