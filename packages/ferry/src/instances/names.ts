// The names PostgreSQL coordinates Ferry's instances by: advisory lock keys and the notification channel. Each is
// derived from the schema the tables live in, so deployments (or test runs) sharing one database in separate schemas
// never see each other's leader lock, instances or notices (advisory locks are per database, not per schema).
import { createHash } from 'node:crypto';

const digest = (algorithm: string, text: string): string => createHash(algorithm).update(text).digest('hex');

/** A signed 64-bit advisory lock key, as the decimal text pg sends for a ::bigint parameter. */
export const advisoryKey = (name: string): string => BigInt.asIntN(64, BigInt(`0x${digest('sha256', name).slice(0, 16)}`)).toString();

/** Held for life by the one instance that follows chains and performs effects. */
export const leaderKey = (schema: string): string => advisoryKey(`ferry leader ${schema}`);

/** Held for life by the live process with this instance id: its swap lock leases are still its own. */
export const instanceKey = (schema: string, instanceId: string): string => advisoryKey(`ferry instance ${schema} ${instanceId}`);

/** Serialises instances installing the notice trigger at the same time. */
export const triggerKey = (schema: string): string => advisoryKey(`ferry notify trigger ${schema}`);

/**
 * The channel swap notices are sent on. The trigger computes the same name in SQL ('ferry_' || left(md5(schema), 16)),
 * short enough for PostgreSQL's 63-byte identifiers whatever the schema.
 */
export const swapChannel = (schema: string): string => `ferry_${digest('md5', schema).slice(0, 16)}`;
