// The polling loop every chain follower runs (the UTXO watcher, the EVM contract follower): one round at a time,
// a round on demand (sync) queued behind the running one, and a node that stays down logged once, not every poll.
import type { WatcherLogger } from './logger.ts';

export class Poller {
  private queue: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private running = false;
  private failing = false;

  constructor(
    /** For the log: which follower of which chain. */
    private readonly name: string,
    private readonly chain: string,
    private readonly intervalMs: number,
    private readonly logger: WatcherLogger,
    private readonly round: () => Promise<void>,
  ) {}

  /** Starts polling; resolves after the first round, which is logged (not thrown) if the node is down. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.poll();
  }

  /** Stops polling and waits for the round in progress. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.queue;
  }

  /** A round now, after the one in progress; rejects if the node fails. */
  sync(): Promise<void> {
    const round = this.queue.then(() => this.round());
    this.queue = round.catch(() => {});
    return round;
  }

  private async poll(): Promise<void> {
    try {
      await this.sync();
      if (this.failing) this.logger.info(`${this.name}: node reachable again`, { chain: this.chain });
      this.failing = false;
    } catch (error) {
      // Keep the log quiet while the node stays down: the first failure is the news.
      const log = this.failing ? this.logger.debug : this.logger.error;
      log.call(this.logger, `${this.name}: poll failed, retrying`, { chain: this.chain, error: String(error) });
      this.failing = true;
    }
    if (this.running) this.timer = setTimeout(() => void this.poll(), this.intervalMs);
  }
}
