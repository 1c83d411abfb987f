// Several Ferry instances on one PostgreSQL database. Every instance serves the API; the one holding the leader
// advisory lock (leader.ts) also runs the engine: chain watchers, invoice follow-up and the effect log. Swap changes
// from any instance reach every instance through NOTIFY (notify-trigger.ts): each relays them to its WebSocket and
// SSE clients (status-relay.ts), and the leader adopts swaps the others created or changed and runs the effects they
// queued. Swap locks and MuSig2 sessions already live in the database.
import type { Storage } from '../db/index.ts';
import { PostgresDatabase } from '../db/postgres.ts';
import type { SwapEngine } from '../engine/engine.ts';
import type { StatusFeed } from '../events/index.ts';
import type { Logger } from '../log/index.ts';
import { LeaderLock, type Role } from './leader.ts';
import { freeLeasesOfGoneInstances } from './leases.ts';
import { instanceKey, leaderKey, swapChannel } from './names.ts';
import { installSwapTrigger } from './notify-trigger.ts';
import { StatusRelay } from './status-relay.ts';
import { SwapNotices } from './swap-notices.ts';

export interface InstanceOptions {
  /** On PostgreSQL. */
  storage: Storage;
  /** Built with `standby: true`: started here when this instance becomes the leader. */
  engine: SwapEngine;
  instanceId: string;
  /** The feed this instance's WebSocket and SSE clients listen to; fed from notices only. */
  feed: StatusFeed;
  logger: Logger;
  /** Leadership was lost while this process lives: it must stop (ferry start exits; a supervisor restarts it). */
  onLost: (reason: string) => void;
  /** How often a standby tries to take the leader lock. Default 500. */
  retryMs?: number;
  /** How often the leader reads the effect log for pending effects it was not told of. Default 5000. */
  sweepMs?: number;
}

export interface InstanceHealth {
  role: Role;
  /** This instance's id (its swap lock owner). */
  instance: string;
  /** Since when it has had this role, ISO 8601. */
  since: string;
}

export interface Instances {
  health(): InstanceHealth;
  /** Takes the leader lock no more; resolves once an attempt under way has finished. The first step of a stop. */
  standDown(): Promise<void>;
  close(): Promise<void>;
}

export async function startInstances(options: InstanceOptions): Promise<Instances> {
  const { storage, engine, logger } = options;
  const db = storage.database;
  if (!(db instanceof PostgresDatabase)) throw new Error('several instances need PostgreSQL');
  const schema = (await db.query<{ schema: string }>('SELECT current_schema() AS schema'))[0].schema;
  await installSwapTrigger(db, schema);
  let sweeper: NodeJS.Timeout | undefined;
  const leader = new LeaderLock({
    connect: () => db.dedicatedClient(),
    leaderKey: leaderKey(schema),
    instanceKey: instanceKey(schema, options.instanceId),
    logger,
    retryMs: options.retryMs,
    onLeader: async (client) => {
      const gone = await freeLeasesOfGoneInstances(db, client, schema, options.instanceId);
      if (gone.length > 0) logger.info('freed the swap locks of instances that are gone', { instances: gone });
      await engine.start(); // follows every active swap, replays every pending effect, starts the watchers
      sweeper = setInterval(() => void engine.sweepEffects().catch((error: unknown) => logger.warn('effect sweep failed', { error: String(error) })), options.sweepMs ?? 5_000);
      sweeper.unref();
    },
    onLost: (reason) => {
      clearInterval(sweeper);
      options.onLost(reason);
    },
  });
  const relay = new StatusRelay((id) => storage.swaps.get(id), options.feed, logger);
  const notices = new SwapNotices({
    connect: () => db.dedicatedClient(),
    channel: swapChannel(schema),
    logger,
    onNotice: (notice) => {
      // Any write of the row, by any instance, this one included: a kept status body of it may be older.
      engine.statusCache.drop(notice.id);
      relay.handle(notice);
      // A no-op until this instance's engine has started (it leads), including while it is starting.
      void engine.adopt(notice.id).catch((error: unknown) => logger.warn('could not adopt a swap', { swap: notice.id, error: String(error) }));
    },
    // Writes made while not listening would go unheard: keep no status body until listening again.
    onLost: () => engine.statusCache.suspend(),
    onReconnect: () => {
      engine.statusCache.resume();
      if (leader.role === 'leader') void engine.resync().catch((error: unknown) => logger.warn('resync failed', { error: String(error) }));
    },
  });
  // Listening first: a leader started below hears every change committed after its own start-up reads.
  await notices.start();
  engine.statusCache.resume(); // built suspended (standby): from here on every write is heard
  try {
    await leader.start();
  } catch (error) {
    await notices.stop();
    throw error;
  }
  if (leader.role === 'standby') logger.info('standing by: serving the API; another instance leads', { role: 'standby' });
  return {
    health: () => ({ role: leader.role, instance: options.instanceId, since: new Date(leader.since).toISOString() }),
    standDown: () => leader.halt(),
    close: async () => {
      clearInterval(sweeper);
      await notices.stop();
      await leader.stop();
    },
  };
}
