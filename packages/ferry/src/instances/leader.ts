// Leader election by a session-level PostgreSQL advisory lock on a connection of its own. The process that holds
// the lock leads; the others try again every retryMs. PostgreSQL releases the lock when the holder's session ends,
// so a killed leader (its socket closed by the OS) is replaced within about retryMs. The same connection holds this
// instance's liveness lock (names.ts instanceKey): whoever can take it knows the instance is gone.
// A leader whose connection is lost cannot know whether another one took over: it is told (onLost) and must stop.
import type pg from 'pg';
import type { Logger } from '../log/index.ts';

export type Role = 'standby' | 'leader';

export interface LeaderLockOptions {
  connect: () => Promise<pg.Client>;
  leaderKey: string;
  instanceKey: string;
  logger: Logger;
  /** Runs once the lock is held, before the role is reported as leader. */
  onLeader: (client: pg.Client) => Promise<void>;
  /** Leadership is gone (its connection lost, or onLeader failed in the background): stop acting as leader. */
  onLost: (reason: string) => void;
  retryMs?: number;
}

const tryLock = async (client: pg.Client, key: string): Promise<boolean> =>
  (await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS taken', [key])).rows[0].taken;

export class LeaderLock {
  role: Role = 'standby';
  /** When the current role began (ms since the epoch). */
  since = Date.now();
  private client?: pg.Client;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** The leader lock is held (set before onLeader runs, so a connection lost while starting counts as lost). */
  private holding = false;
  private readonly retryMs: number;
  /** An attempt to lead under way (the engine starting), awaited by `halt`. */
  private leading?: Promise<void>;

  constructor(private readonly options: LeaderLockOptions) {
    this.retryMs = options.retryMs ?? 500;
  }

  /**
   * Connects and tries once, so the role is known (and a leader started) when this resolves; keeps trying in the
   * background after that. Fails when another live process uses this instance id.
   */
  async start(): Promise<void> {
    this.client = await this.open();
    if (await tryLock(this.client, this.options.leaderKey)) await this.lead(this.client);
    else this.schedule();
  }

  /**
   * Tries to lead no more, and waits for an attempt under way: whatever it started (the engine) is then there for the
   * caller to stop. A stop must begin here, or a standby could take the lock and start the engine being stopped.
   */
  async halt(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.leading;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    // Ending the session releases both advisory locks.
    await client?.end().catch(() => {});
  }

  private async open(): Promise<pg.Client> {
    const client = await this.options.connect();
    client.on('error', (error) => this.lost(client, String(error)));
    client.on('end', () => this.lost(client, 'connection ended'));
    try {
      // Right after a restart the old session of this id may still be closing: give it a moment.
      for (let attempt = 0; !(await tryLock(client, this.options.instanceKey)); attempt++) {
        if (attempt >= 20) throw new Error('another live Ferry instance uses this instance id (<dataDir>/instance-id): give each instance its own data directory');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    return client;
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.attempt(), this.retryMs);
    this.timer.unref();
  }

  private async attempt(): Promise<void> {
    try {
      this.client ??= await this.open();
      if (this.stopped) return;
      if (await tryLock(this.client, this.options.leaderKey)) {
        this.leading = this.lead(this.client).catch((error: unknown) => {
          // Failing to start while stopping is the stop's doing (what the start used is closing), not a lost lock.
          if (this.stopped) this.options.logger.warn('could not start leading while stopping', { error: String(error) });
          else this.options.onLost(`could not start leading: ${String(error)}`);
        });
        await this.leading;
        return;
      }
    } catch (error) {
      this.options.logger.warn('leader lock: database unreachable, retrying', { error: String(error) });
      const client = this.client;
      this.client = undefined;
      await client?.end().catch(() => {});
    }
    this.schedule();
  }

  private async lead(client: pg.Client): Promise<void> {
    this.holding = true;
    this.options.logger.info('leadership taken: following chains and performing effects');
    await this.options.onLeader(client);
    this.role = 'leader';
    this.since = Date.now();
    this.options.logger.info('leading', { role: 'leader' });
  }

  private lost(client: pg.Client, reason: string): void {
    if (this.stopped || this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => {});
    if (this.holding) {
      this.options.onLost(`leader lock connection lost: ${reason}`);
      return;
    }
    this.options.logger.warn('leader lock: connection lost while standing by, reconnecting', { reason });
    this.schedule();
  }
}
