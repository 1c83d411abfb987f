// The loop every swap follower runs (UTXO swaps in follow.ts, contract swaps in follow-contract.ts): one status
// update handled at a time, in order, until the handler finishes; a step that may pass retried a bounded number of
// times, a wait repeated without counting; stopping on the signal; no timer or listener left behind.
import type { StatusStream } from './status-stream.ts';
import type { StatusUpdate } from './types.ts';

const MAX_TRIES = 5;

export interface StatusLoop<R> {
  finish(result: R): void;
  /** Handles the status again a little later, when what it waits for may have happened. */
  waitLater(update: StatusUpdate): void;
  /** A step failed for a reason that may pass: warns, and tries the same status again, at most 5 times. */
  retryLater(update: StatusUpdate, message: string): void;
}

export interface StatusLoopOptions<R> {
  stream: StatusStream;
  id: string;
  signal?: AbortSignal;
  retryMs: number;
  warn(message: string): void;
  /** The result when the signal stops following. */
  stopped(): R;
  /** What ends the swap when its retries are used up; default: nothing, the next status may still come. */
  gaveUp?: (message: string) => R;
  /** The handler of each update, given the loop it runs in. */
  handler(loop: StatusLoop<R>): (update: StatusUpdate) => Promise<void>;
}

export function runStatusLoop<R>(options: StatusLoopOptions<R>): Promise<R> {
  const { stream, id, signal } = options;
  return new Promise((resolve) => {
    let queue = Promise.resolve();
    let done = false;
    const tries = new Map<string, number>();
    const timers = new Set<ReturnType<typeof setTimeout>>();

    const loop: StatusLoop<R> = {
      finish(result) {
        if (done) return;
        done = true;
        for (const timer of timers) clearTimeout(timer);
        stream.off('update', listener);
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      },
      waitLater(update) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          enqueue(stream.current(id) ?? update);
        }, options.retryMs);
        timers.add(timer);
      },
      retryLater(update, message) {
        const count = (tries.get(update.status) ?? 0) + 1;
        tries.set(update.status, count);
        options.warn(count < MAX_TRIES ? `${message} (will retry)` : message);
        if (count < MAX_TRIES) loop.waitLater(update);
        else if (options.gaveUp) loop.finish(options.gaveUp(message));
      },
    };
    const onAbort = () => loop.finish(options.stopped());
    const handle = options.handler(loop);
    const enqueue = (update: StatusUpdate) => {
      queue = queue.then(() => (done ? undefined : handle(update))).catch((error) => options.warn((error as Error).message));
    };
    const listener = (update: StatusUpdate) => {
      if (update.id === id) enqueue(update);
    };

    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort);
    stream.on('update', listener);
    stream.subscribe(id);
    const known = stream.current(id);
    if (known) enqueue(known);
  });
}
