// Swap notices → the status feed of this instance's WebSocket and SSE clients. A notice carries the new status but
// not the rest of the body (a transaction's hex may be large), so the row is read back, only for swaps someone here
// watches. The row may have moved on meanwhile: the body is built for the notice's status from it (the data a status
// shows, e.g. the lockup, stays in the row), so every status is delivered, not only the latest. Notices of one swap
// are handled one after the other and each version is published once, so a client never sees a status twice or an
// older one after a newer one, whichever instance made the change.
import type { SwapRecord } from '../db/index.ts';
import { statusBody } from '../engine/status-body.ts';
import type { StatusFeed } from '../events/index.ts';
import type { Logger } from '../log/index.ts';
import type { SwapNotice } from './notify-trigger.ts';

/** Swaps whose last published version is remembered; the oldest is forgotten first. */
const REMEMBERED = 50_000;

export class StatusRelay {
  private readonly published = new Map<string, number>();
  private readonly tails = new Map<string, Promise<void>>();

  constructor(
    private readonly read: (id: string) => Promise<SwapRecord | undefined>,
    private readonly feed: StatusFeed,
    private readonly logger: Logger,
  ) {}

  handle(notice: SwapNotice): void {
    if (!notice.changed || !this.feed.watches(notice.id)) return;
    const tail = (this.tails.get(notice.id) ?? Promise.resolve())
      .then(() => this.deliver(notice))
      .catch((error: unknown) => this.logger.warn('could not relay a status change', { swap: notice.id, error: String(error) }));
    this.tails.set(notice.id, tail);
    void tail.then(() => {
      if (this.tails.get(notice.id) === tail) this.tails.delete(notice.id);
    });
  }

  private async deliver(notice: SwapNotice): Promise<void> {
    if ((this.published.get(notice.id) ?? -1) >= notice.version) return;
    const swap = await this.read(notice.id);
    if (swap === undefined) return;
    this.published.delete(notice.id);
    this.published.set(notice.id, notice.version);
    if (this.published.size > REMEMBERED) this.published.delete(this.published.keys().next().value!);
    this.feed.publish(notice.id, statusBody({ ...swap, status: notice.status }));
  }
}
