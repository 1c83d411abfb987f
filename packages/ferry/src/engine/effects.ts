// Runs the effect log: every effect a transition wrote is performed after commit, one at a time per swap and in
// the order decided, then marked done. A failure is retried with backoff (the effect stays pending, so a
// restart replays it too) a bounded number of times, then given up like a permanent failure, so nothing loops
// silently; handlers are written to be safe to run again. A handler may also ask to run later (Defer) or give up
// for good (PermanentEffectError). An effect given up is an operator alert ('effectFailed', error), cleared when
// the operator runs it again.
import type { OperatorAlerts } from '../alerts/index.ts';
import type { EffectRecord, Storage } from '../db/index.ts';
import type { Logger } from '../log/index.ts';

/** Thrown by a handler that has nothing to do before `at` (ms since the epoch). */
export class Defer extends Error {
  constructor(readonly at: number) {
    super(`deferred until ${new Date(at).toISOString()}`);
  }
}

/** Thrown by a handler whose effect can never succeed; it is marked failed and not retried. */
export class PermanentEffectError extends Error {}

export type EffectHandler = (effect: EffectRecord) => Promise<void>;

export interface EffectRunnerOptions {
  retryBaseMs: number;
  retryMaxMs: number;
  /** Failed attempts after which the effect is marked failed (the operator retries it: `ferry admin retry`). */
  maxAttempts?: number;
  /**
   * Perform nothing until release(): on a standby instance effects stay pending in the database, where the leader
   * (or this instance, once it leads) picks them up.
   */
  held?: boolean;
  /** Where an effect given up is reported to the operator (besides the error line). */
  alerts?: OperatorAlerts;
}

/** The alert key of an effect given up: one alert per effect log entry. */
export const effectAlertKey = (effect: Pick<EffectRecord, 'id'>): string => `effect:${effect.id}`;

/** How many finished effect ids are remembered, so a stale list of pending effects does not run one again. */
const FINISHED_MEMORY = 10_000;

export class EffectRunner {
  private readonly queues = new Map<string, EffectRecord[]>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly known = new Set<number>();
  private readonly attempts = new Map<number, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly handlers = new Map<string, EffectHandler>();
  private readonly finished = new Set<number>();
  private stopped = false;
  private held: boolean;

  constructor(
    private readonly storage: Storage,
    private readonly logger: Logger,
    private readonly options: EffectRunnerOptions,
  ) {
    this.held = options.held ?? false;
  }

  /** Starts performing effects (see EffectRunnerOptions.held); effects enqueued while held were dropped. */
  release(): void {
    this.held = false;
  }

  register(kind: string, handler: EffectHandler): void {
    this.handlers.set(kind, handler);
  }

  enqueue(effects: readonly EffectRecord[]): void {
    for (const effect of effects) {
      if (this.known.has(effect.id) || this.finished.has(effect.id) || this.stopped || this.held) continue;
      this.known.add(effect.id);
      this.attempts.set(effect.id, effect.attempts);
      this.push(effect);
    }
  }

  /** Queues effects the operator reopened (`ferry admin retry`): remembered as finished here, they run again all the same. */
  retry(effects: readonly EffectRecord[]): void {
    for (const effect of effects) {
      this.finished.delete(effect.id);
      void this.options.alerts?.clear('effectFailed', effectAlertKey(effect)).catch(() => {});
    }
    this.enqueue(effects);
  }

  /** Resolves once the swap has no effect running or queued (ones waiting for a retry or a deferral excepted). */
  async whenIdle(swapId: string): Promise<void> {
    if (this.held) return this.whenIdleElsewhere(swapId);
    let current = this.running.get(swapId);
    while (current !== undefined) {
      await current;
      current = this.running.get(swapId);
    }
  }

  /**
   * whenIdle on a standby, whose effects the leader performs: polls the log until each effect of the swap pending when
   * asked is done, failed or has been tried (a failed attempt waits for its retry, as whenIdle does), at most
   * `timeoutMs`; the caller checks the outcome it needs itself.
   */
  private async whenIdleElsewhere(swapId: string, timeoutMs = 30_000, pollMs = 50): Promise<void> {
    const attemptsOf = async () => new Map((await this.storage.effects.listPending({ swapId })).map((effect) => [effect.id, effect.attempts]));
    const waiting = await attemptsOf();
    const deadline = Date.now() + timeoutMs;
    while (waiting.size > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      const pending = await attemptsOf();
      for (const [id, attempts] of waiting) if (!pending.has(id) || pending.get(id)! > attempts) waiting.delete(id);
    }
  }

  /** Stops taking work; waits up to `graceMs` for the effects in progress. Pending effects resume on restart. */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    let timeout: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timeout = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.allSettled([...this.running.values()]), grace]);
    clearTimeout(timeout);
  }

  private push(effect: EffectRecord): void {
    const queue = this.queues.get(effect.swapId) ?? [];
    queue.push(effect);
    this.queues.set(effect.swapId, queue);
    this.kick(effect.swapId);
  }

  private kick(swapId: string): void {
    if (this.running.has(swapId)) return;
    const run = this.drain(swapId).finally(() => {
      this.running.delete(swapId);
      // Work pushed while this run was finishing starts a new run.
      if ((this.queues.get(swapId)?.length ?? 0) > 0 && !this.stopped) this.kick(swapId);
      else this.queues.delete(swapId);
    });
    this.running.set(swapId, run);
  }

  private async drain(swapId: string): Promise<void> {
    let next = this.queues.get(swapId)?.shift();
    while (next !== undefined && !this.stopped) {
      await this.runOne(next);
      next = this.queues.get(swapId)?.shift();
    }
  }

  private async runOne(effect: EffectRecord): Promise<void> {
    const handler = this.handlers.get(effect.kind);
    const fields = { swap: effect.swapId, effect: effect.kind, id: effect.id };
    try {
      if (handler === undefined) throw new PermanentEffectError(`no handler for effect ${effect.kind}`);
      await handler(effect);
      await this.storage.effects.markDone(effect.id);
      this.forget(effect.id);
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof Defer) {
        this.later(effect, error.at - Date.now());
        return;
      }
      if (error instanceof PermanentEffectError) {
        this.logger.error('effect failed for good', { ...fields, error: error.message });
        await this.storage.effects.markFailed(effect.id, error.message).catch(() => {});
        this.forget(effect.id);
        await this.alertGivenUp(effect, error.message);
        return;
      }
      const attempts = (this.attempts.get(effect.id) ?? 0) + 1;
      this.attempts.set(effect.id, attempts);
      if (attempts >= (this.options.maxAttempts ?? Infinity)) {
        this.logger.error('effect failed for good after retries', { ...fields, attempts, error: String(error) });
        const reason = `gave up after ${attempts} attempts: ${String(error)}`;
        await this.storage.effects.markFailed(effect.id, reason).catch(() => {});
        this.forget(effect.id);
        await this.alertGivenUp(effect, reason, attempts);
        return;
      }
      const delay = Math.min(this.options.retryMaxMs, this.options.retryBaseMs * 2 ** Math.min(attempts - 1, 16));
      this.logger.warn('effect failed, retrying', { ...fields, attempts, retryInMs: delay, error: String(error) });
      await this.storage.effects.recordAttempt(effect.id, String(error)).catch(() => {});
      this.later(effect, delay);
    }
  }

  private async alertGivenUp(effect: EffectRecord, reason: string, attempts?: number): Promise<void> {
    await this.options.alerts
      ?.raise({
        kind: 'effectFailed',
        severity: 'error',
        key: effectAlertKey(effect),
        message: `effect ${effect.kind} of swap ${effect.swapId} failed for good: ${reason}`,
        swapId: effect.swapId,
        details: { effect: effect.kind, effectId: effect.id, reason, ...(attempts !== undefined && { attempts }) },
      })
      .catch((error: unknown) => this.logger.warn('effect alert not raised', { swap: effect.swapId, error: String(error) }));
  }

  private later(effect: EffectRecord, delayMs: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (!this.stopped) this.push(effect);
      },
      Math.max(0, delayMs),
    );
    timer.unref();
    this.timers.add(timer);
  }

  private forget(id: number): void {
    this.known.delete(id);
    this.attempts.delete(id);
    // A list of pending effects read before this one was marked done may be enqueued after it (a leader re-reads
    // the log when other instances write to it): remember it, oldest forgotten first.
    this.finished.add(id);
    if (this.finished.size > FINISHED_MEMORY) this.finished.delete(this.finished.values().next().value!);
  }
}
