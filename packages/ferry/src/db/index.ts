// Ferry's storage: open a database by URL, migrate it, and get repositories over it.
export { openDatabase, parseDatabaseUrl, type OpenOptions, type DatabaseLocation } from './open.ts';
export { isDatabase, type Database, type Dialect, type ExecuteResult, type Queryable, type SqlValue } from './types.ts';
export {
  DatabaseError,
  ForeignKeyViolation,
  SchemaTooNewError,
  TransactionAborted,
  UniqueViolation,
} from './errors.ts';
export { MIGRATIONS, SCHEMA_VERSION, type Migration } from './migrations.ts';
export { migrate, schemaVersion, type MigrationResult } from './migrator.ts';
export { createRepositories, type Repositories, type Storage } from './repositories/index.ts';
export type { Clock, RepositoryOptions } from './repositories/common.ts';
export { CheckpointRepository, type Checkpoint, type CheckpointStore } from './repositories/checkpoints.ts';
export { CounterRepository, SWAP_KEY_INDEX } from './repositories/counters.ts';
export {
  EffectRepository,
  type EffectRecord,
  type EffectState,
  type NewEffect,
} from './repositories/effects.ts';
export { AlertRepository, type AlertRecord, type NewAlert } from './repositories/alerts.ts';
export { FeeSampleRepository, type FeeSample } from './repositories/fee-samples.ts';
export { KvRepository } from './repositories/kv.ts';
export { LockRepository } from './repositories/locks.ts';
export { SigningSessionRepository, type SigningSessionRecord } from './repositories/signing-sessions.ts';
export {
  SwapRepository,
  type NewSwap,
  type SwapData,
  type SwapRecord,
  type SwapUpdate,
} from './repositories/swaps.ts';
export { saveTransition, type TransitionResult } from './repositories/transition.ts';
export { openStorage } from './storage.ts';
