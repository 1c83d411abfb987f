// One WebSocket client: its swap.update subscriptions and the answers to its messages. Messages are handled one
// at a time, in order, so an acknowledgement, its snapshot and later updates never overtake each other.
import WebSocket from 'ws';
import type { SwapService, SwapStatusBody } from '../../protocol/index.ts';
import { watchWithSnapshot, type StatusFeed } from '../../events/index.ts';
import type { Logger } from '../../log/index.ts';
import { isSwapId } from '../http/validate.ts';
import { ProtocolError, parseClientMessage, swapUpdateChannel, type ClientCommand } from './messages.ts';

export interface ConnectionLimits {
  /** Swaps one connection may watch at once. */
  maxSubscriptions: number;
  /** A client that stops reading is dropped once this much output is queued for it. */
  maxBufferedBytes: number;
}

// Above this many unprocessed messages we stop reading from the socket until the backlog drains.
const maxBacklog = 8;

export class SwapUpdateConnection {
  private readonly watching = new Map<string, () => void>();
  private queue: Promise<void> = Promise.resolve();
  private backlog = 0;
  private closed = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly swaps: SwapService,
    private readonly feed: StatusFeed,
    private readonly logger: Logger,
    private readonly limits: ConnectionLimits,
  ) {}

  get subscriptions(): number {
    return this.watching.size;
  }

  receive(text: string): void {
    this.backlog++;
    if (this.backlog > maxBacklog) this.socket.pause();
    this.queue = this.queue
      .then(() => this.handle(text))
      .catch((error) => {
        this.logger.error('websocket message failed', { error: (error as Error).stack ?? String(error) });
        this.send({ event: 'error', error: 'internal error' });
      })
      .finally(() => {
        this.backlog--;
        if (this.backlog <= maxBacklog && this.socket.isPaused) this.socket.resume();
      });
  }

  /** Stops every subscription; called when the socket closes. */
  close(): void {
    this.closed = true;
    for (const stop of this.watching.values()) stop();
    this.watching.clear();
  }

  private async handle(text: string): Promise<void> {
    if (this.closed) return;
    let command: ClientCommand;
    try {
      command = parseClientMessage(text);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      return this.send({ event: 'error', error: error.message });
    }
    switch (command.op) {
      case 'ping':
        return this.send({ event: 'pong' });
      case 'subscribe':
        return this.subscribe(command.args);
      case 'unsubscribe':
        return this.unsubscribe(command.args);
    }
  }

  private async subscribe(args: string[]): Promise<void> {
    const ids = [...new Set(args)];
    const added = ids.filter((id) => !this.watching.has(id)).length;
    if (this.watching.size + added > this.limits.maxSubscriptions) {
      return this.send({
        event: 'error',
        error: `too many subscriptions: at most ${this.limits.maxSubscriptions} swaps per connection`,
      });
    }
    this.send({ event: 'subscribe', channel: swapUpdateChannel, args });
    // Ids watched already are re-watched, so their snapshot and live changes go through the same merge.
    for (const id of ids) {
      this.watching.get(id)?.();
      this.watching.delete(id);
    }
    const stops = await watchWithSnapshot({
      feed: this.feed,
      ids,
      read: (id) => this.read(id),
      onSnapshot: (found) => {
        if (found.length > 0) this.sendUpdate(found);
      },
      onChange: (id, status) => this.sendUpdate([{ id, status }]),
    });
    if (this.closed) {
      for (const stop of stops.values()) stop();
      return;
    }
    for (const [id, stop] of stops) this.watching.set(id, stop);
  }

  private unsubscribe(args: string[]): void {
    for (const id of args) {
      this.watching.get(id)?.();
      this.watching.delete(id);
    }
    // the spec shows the reply with `op`, deployed servers send `event`: clients look for either
    const still = [...this.watching.keys()];
    this.send({ event: 'unsubscribe', op: 'unsubscribe', channel: swapUpdateChannel, args: still });
  }

  /** Unknown ids are simply left out of the snapshot; a failing read is logged and treated the same. */
  private async read(id: string): Promise<SwapStatusBody | undefined> {
    if (!isSwapId(id)) return undefined;
    try {
      return await this.swaps.status(id);
    } catch (error) {
      this.logger.error('status read failed', { id, error: (error as Error).stack ?? String(error) });
      return undefined;
    }
  }

  private sendUpdate(found: { id: string; status: SwapStatusBody }[]): void {
    this.send({ event: 'update', channel: swapUpdateChannel, args: found.map(({ id, status }) => ({ id, ...status })) });
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(JSON.stringify({ ...message, timestamp: Date.now().toString() }));
    if (this.socket.bufferedAmount > this.limits.maxBufferedBytes) {
      this.logger.warn('websocket client too slow, dropping it', { buffered: this.socket.bufferedAmount });
      this.socket.terminate();
    }
  }
}
