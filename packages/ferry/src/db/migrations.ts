// Ferry's schema, as an append-only list of migrations. Never edit a released migration: add one.
// SQL is shared; only column types differ, through `types(dialect)`.
//
// Expand, then contract: several instances share one PostgreSQL database and are upgraded one at a time, so for a
// while an older instance runs beside a database a newer one migrated. A migration that only adds — a table, a
// nullable (or defaulted) column, an index — leaves every statement of the older code working: mark it
// `compatible: true`, and an older instance keeps running (and restarting) beside it. A migration that contracts —
// drops or renames a table or column, makes a column NOT NULL, narrows a CHECK — breaks the older code: leave it
// unmarked (an older instance then refuses to start on that database, SchemaTooNewError), and ship it only in a
// release after every instance already runs code that no longer reads or writes the old shape. A change of shape is
// therefore two releases: the first expands (adds the new shape, writes both, marked compatible), the second
// contracts (drops the old shape, unmarked). docs/operations.md#upgrading says the same for operators.
import type { Dialect } from './types.ts';

export interface Migration {
  /** 1, 2, 3, ... with no gaps; the database records the highest one applied. */
  version: number;
  name: string;
  /** Statements to run, one per string (better-sqlite3 prepares one statement at a time). */
  statements(dialect: Dialect): string[];
  /**
   * True when the migration only expands the schema, so code that predates it still runs on the migrated database
   * (recorded in schema_migrations.compatible, where an older instance reads it). See the rule above.
   */
  compatible?: boolean;
}

export interface ColumnTypes {
  /** A 64-bit integer. */
  bigint: string;
  /** An auto-assigned, never reused, 64-bit integer primary key. */
  autoId: string;
  /** A 64-bit floating point number. */
  double: string;
  /** Appended to CREATE TABLE: SQLite STRICT tables reject wrongly typed values, as PostgreSQL does. */
  tableSuffix: string;
}

export function types(dialect: Dialect): ColumnTypes {
  return dialect === 'sqlite'
    ? { bigint: 'INTEGER', autoId: 'INTEGER PRIMARY KEY AUTOINCREMENT', double: 'REAL', tableSuffix: ' STRICT' }
    : { bigint: 'BIGINT', autoId: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY', double: 'DOUBLE PRECISION', tableSuffix: '' };
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    statements(dialect) {
      const t = types(dialect);
      return [
        `CREATE TABLE chain_checkpoints (
          chain TEXT NOT NULL PRIMARY KEY,
          height ${t.bigint} NOT NULL,
          block_hash TEXT NOT NULL,
          updated_at ${t.bigint} NOT NULL
        )${t.tableSuffix}`,
        `CREATE TABLE swaps (
          id TEXT NOT NULL PRIMARY KEY,
          type TEXT NOT NULL,
          pair TEXT NOT NULL,
          status TEXT NOT NULL,
          preimage_hash TEXT NOT NULL UNIQUE,
          invoice TEXT UNIQUE,
          key_index ${t.bigint},
          timeout_block_height ${t.bigint},
          lockup_address TEXT,
          data TEXT NOT NULL,
          version ${t.bigint} NOT NULL,
          created_at ${t.bigint} NOT NULL,
          updated_at ${t.bigint} NOT NULL
        )${t.tableSuffix}`,
        `CREATE INDEX swaps_status_idx ON swaps (status)`,
        `CREATE INDEX swaps_lockup_address_idx ON swaps (lockup_address)`,
        `CREATE TABLE swap_effects (
          id ${t.autoId},
          swap_id TEXT NOT NULL REFERENCES swaps (id),
          kind TEXT NOT NULL,
          payload TEXT NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
          attempts ${t.bigint} NOT NULL,
          last_error TEXT,
          created_at ${t.bigint} NOT NULL,
          updated_at ${t.bigint} NOT NULL
        )${t.tableSuffix}`,
        // Partial: done and failed effects pile up forever, the engine only ever scans pending ones.
        `CREATE INDEX swap_effects_pending_idx ON swap_effects (id) WHERE state = 'pending'`,
        `CREATE INDEX swap_effects_swap_idx ON swap_effects (swap_id, id)`,
        `CREATE TABLE counters (
          name TEXT NOT NULL PRIMARY KEY,
          value ${t.bigint} NOT NULL
        )${t.tableSuffix}`,
        `CREATE TABLE kv (
          key TEXT NOT NULL PRIMARY KEY,
          value TEXT NOT NULL,
          updated_at ${t.bigint} NOT NULL
        )${t.tableSuffix}`,
      ];
    },
  },
  {
    version: 2,
    name: 'signing sessions and locks',
    statements(dialect) {
      const t = types(dialect);
      return [
        // A MuSig2 session Ferry opened with a client (its nonce handed out, the signature still to come), so
        // another instance can finish it; the secret nonce is stored encrypted (src/engine/signing-sessions.ts).
        `CREATE TABLE signing_sessions (
          swap_id TEXT NOT NULL REFERENCES swaps (id),
          purpose TEXT NOT NULL,
          public_nonce TEXT NOT NULL,
          sealed_secret_nonce TEXT NOT NULL,
          message TEXT NOT NULL,
          transaction_hex TEXT NOT NULL,
          used ${t.bigint} NOT NULL,
          created_at ${t.bigint} NOT NULL,
          PRIMARY KEY (swap_id, purpose)
        )${t.tableSuffix}`,
        // Leases: one holder at a time per name (a swap id, or a wallet), across every instance on the database.
        `CREATE TABLE locks (
          name TEXT NOT NULL PRIMARY KEY,
          owner TEXT NOT NULL,
          expires_at ${t.bigint} NOT NULL
        )${t.tableSuffix}`,
      ];
    },
  },
  {
    version: 3,
    name: 'client public keys',
    statements(dialect) {
      // The keys a client gave when it created each swap, so POST /v2/swap/restore finds a wallet's swaps by
      // key through an index instead of reading every swap's data. Filled at creation (SwapRepository.insert);
      // the swaps already stored are filled here from their data.
      const field = (path: string) => (dialect === 'sqlite' ? `json_extract(data, '$.${path}')` : `(data::json #>> '{${path.replace('.', ',')}}')`);
      const fill = (type: string, path: string) =>
        `INSERT INTO swap_client_keys (public_key, swap_id)
         SELECT ${field(path)}, id FROM swaps WHERE type = '${type}' AND ${field(path)} IS NOT NULL
         ON CONFLICT DO NOTHING`;
      return [
        `CREATE TABLE swap_client_keys (
          public_key TEXT NOT NULL,
          swap_id TEXT NOT NULL REFERENCES swaps (id),
          PRIMARY KEY (public_key, swap_id)
        )${types(dialect).tableSuffix}`,
        fill('submarine', 'refundPublicKey'),
        fill('reverse', 'claimPublicKey'),
        fill('chain', 'user.refundPublicKey'),
        fill('chain', 'server.claimPublicKey'),
      ];
    },
  },
  {
    version: 4,
    name: 'client EVM addresses',
    statements(dialect) {
      // The client's EVM addresses of contract swaps (src/swaps/client-addresses.ts), lower case, so a restore by
      // EVM address finds them through an index. Filled at creation and when a user's lock names its refund
      // address (SwapStore); the swaps already stored are filled here from their data.
      const field = (path: string) => (dialect === 'sqlite' ? `json_extract(data, '$.${path}')` : `(data::json #>> '{${path.replaceAll('.', ',')}}')`);
      const fill = (type: string, path: string, when: string) =>
        `INSERT INTO swap_client_addresses (address, swap_id)
         SELECT lower(${field(path)}), id FROM swaps WHERE type = '${type}' AND ${field(when)} IS NOT NULL AND ${field(path)} IS NOT NULL
         ON CONFLICT DO NOTHING`;
      return [
        `CREATE TABLE swap_client_addresses (
          address TEXT NOT NULL,
          swap_id TEXT NOT NULL REFERENCES swaps (id),
          PRIMARY KEY (address, swap_id)
        )${types(dialect).tableSuffix}`,
        fill('submarine', 'lockup.contract.refundAddress', 'contract.claimAddress'),
        fill('reverse', 'contract.claimAddress', 'contract.claimAddress'),
        fill('chain', 'lockup.contract.refundAddress', 'user.contract.address'),
        fill('chain', 'server.contract.claimAddress', 'server.contract.claimAddress'),
      ];
    },
  },
  {
    version: 5,
    name: 'bolt12 offers',
    statements(dialect) {
      // BOLT12 offers wallets registered for reverse swaps (/v2/lightning/{currency}/bolt12), with the webhook that
      // answers their invoice requests; kept across restarts and shared by every instance. `offer_id` is the hex
      // SHA256 of the offer's TLV bytes (what every invoice request for it mirrors).
      const t = types(dialect);
      return [
        `CREATE TABLE bolt12_offers (
          currency TEXT NOT NULL,
          offer_id TEXT NOT NULL,
          offer TEXT NOT NULL,
          url TEXT,
          created_at ${t.bigint} NOT NULL,
          PRIMARY KEY (currency, offer_id)
        )${t.tableSuffix}`,
        'CREATE INDEX bolt12_offers_by_id ON bolt12_offers (offer_id)',
      ];
    },
  },
  {
    version: 6,
    name: 'webhook deliveries',
    statements(dialect) {
      // Swap status webhook calls not yet taken by their receiver (src/webhooks/queue.ts): kept until delivered or
      // given up, so a restart or a takeover by another instance goes on retrying them.
      const t = types(dialect);
      return [
        `CREATE TABLE webhook_deliveries (
          id ${t.autoId},
          url TEXT NOT NULL,
          payload TEXT NOT NULL,
          attempts ${t.bigint} NOT NULL,
          next_at ${t.bigint} NOT NULL,
          created_at ${t.bigint} NOT NULL
        )${t.tableSuffix}`,
        'CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at)',
      ];
    },
  },
  {
    version: 7,
    name: 'operator alerts',
    statements(dialect) {
      // Money events for the operator (src/alerts): one row per raise, active until cleared. The partial unique index
      // makes a raise of an active (kind, key) a no-op on every instance sharing the database; once cleared, the same
      // condition may be raised again as a new row. notify_next_at is the operator webhook's pending call (NULL: none).
      const t = types(dialect);
      return [
        `CREATE TABLE operator_alerts (
          id ${t.autoId},
          kind TEXT NOT NULL,
          alert_key TEXT NOT NULL,
          severity TEXT NOT NULL,
          message TEXT NOT NULL,
          swap_id TEXT,
          chain TEXT,
          pair TEXT,
          amount ${t.bigint},
          details TEXT NOT NULL,
          raised_at ${t.bigint} NOT NULL,
          cleared_at ${t.bigint},
          cleared_by TEXT,
          notify_attempts ${t.bigint} NOT NULL,
          notify_next_at ${t.bigint}
        )${t.tableSuffix}`,
        'CREATE UNIQUE INDEX operator_alerts_active ON operator_alerts (kind, alert_key) WHERE cleared_at IS NULL',
        'CREATE INDEX operator_alerts_notify ON operator_alerts (notify_next_at)',
      ];
    },
  },
  {
    version: 8,
    name: 'pair fee history',
    compatible: true,
    statements(dialect) {
      // The fee history of GET /v2/swap/{type}/stats/{from}/{to} (src/engine/fee-history.ts): one sample per pair and
      // ten-minute bucket, by whichever instance leads; the primary key makes a second write of a bucket a no-op.
      const t = types(dialect);
      return [
        `CREATE TABLE pair_fee_samples (
          swap_type TEXT NOT NULL,
          pair TEXT NOT NULL,
          sampled_at ${t.bigint} NOT NULL,
          fee ${t.double} NOT NULL,
          max_routing_fee ${t.double},
          PRIMARY KEY (swap_type, pair, sampled_at)
        )${t.tableSuffix}`,
      ];
    },
  },
];

/** The schema version this code expects: the highest migration it knows. */
export const SCHEMA_VERSION: number = MIGRATIONS.length;
