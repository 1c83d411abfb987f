// One WebSocket client: its swap.update subscriptions and the answers to its messages. Messages are handled one
// at a time, in order, so an acknowledgement, its snapshot and later updates never overtake each other.
// Memory per subscription is what limits how many one process holds: a subscription is the id in this
// connection's set plus one entry in the feed, both pointing at the same string and at this connection's one
// listener — no closure or object per subscription.
import WebSocket from 'ws';
import type { SwapService, SwapStatusBody } from '@ferry/sdk/protocol/index.js';
import type { StatusFeed } from '../../events/index.ts';
import type { Logger } from '../../log/index.ts';
import { isSwapId } from '../http/validate.ts';
import { ProtocolError, invoiceRequestChannel, isOfferCommand, parseClientMessage, swapUpdateChannel, type ClientCommand } from './messages.ts';
import type { InvoiceRequestHub } from './invoice-requests.ts';
import { OfferChannel } from './offer-channel.ts';

export interface ConnectionLimits {
  /** Swaps one connection may watch at once. */
  maxSubscriptions: number;
  /** A client that stops reading is dropped once this much output is queued for it. */
  maxBufferedBytes: number;
  /** Messages per minute (a bucket of this many, refilled evenly); more closes the connection. 0: unlimited. */
  messagesPerMinute: number;
}

/** Subscriptions of every connection together, against one ceiling. */
export class SubscriptionBudget {
  used = 0;
  constructor(readonly max: number) {}
}

/** Close codes: 1008 policy violation (the client broke a limit), as RFC 6455 names it. */
export const policyViolation = 1008;

// Above this many unprocessed messages we stop reading from the socket until the backlog drains.
const maxBacklog = 8;

export class SwapUpdateConnection {
  private readonly watching = new Set<string>();
  /** While a subscribe reads its snapshot: the ids read, with the changes heard meanwhile (null: none yet). */
  private reading?: Map<string, SwapStatusBody | null>;
  private queue: Promise<void> = Promise.resolve();
  private backlog = 0;
  private closed = false;
  private tokens: number;
  private refilledAt = Date.now();
  /** The `invoice.request` channel; none where BOLT12 requests are not served. */
  private readonly offers?: OfferChannel;
  private readonly onChange = (id: string, status: SwapStatusBody): void => {
    if (this.reading?.has(id)) this.reading.set(id, status);
    else this.sendUpdate([{ id, status }]);
  };

  constructor(
    private readonly socket: WebSocket,
    private readonly swaps: SwapService,
    private readonly feed: StatusFeed,
    private readonly logger: Logger,
    private readonly limits: ConnectionLimits,
    private readonly budget: SubscriptionBudget = new SubscriptionBudget(0),
    invoiceRequests?: InvoiceRequestHub,
  ) {
    this.tokens = limits.messagesPerMinute;
    if (invoiceRequests) this.offers = new OfferChannel(invoiceRequests, (message) => this.send(message));
  }

  get subscriptions(): number {
    return this.watching.size;
  }

  /** True while this connection has stopped reading its socket to work off its own backlog. */
  get behind(): boolean {
    return this.backlog > maxBacklog;
  }

  receive(text: string): void {
    if (this.closed) return;
    if (!this.takeToken()) {
      this.logger.debug('websocket client over its message rate, closing it');
      this.closeWith(policyViolation, `too many messages: at most ${this.limits.messagesPerMinute} per minute`);
      return;
    }
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
    if (this.closed) return;
    this.closed = true;
    this.offers?.close();
    for (const id of this.watching) this.feed.remove(id, this.onChange);
    this.budget.used -= this.watching.size;
    this.watching.clear();
  }

  private takeToken(): boolean {
    const perMinute = this.limits.messagesPerMinute;
    if (perMinute <= 0) return true;
    const now = Date.now();
    this.tokens = Math.min(perMinute, this.tokens + ((now - this.refilledAt) / 60_000) * perMinute);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Closes with a code and a reason the client can read; stops answering at once. */
  private closeWith(code: number, reason: string): void {
    this.close();
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close(code, reason);
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
    if (isOfferCommand(command)) {
      if (!this.offers) return this.send({ event: 'error', error: `unsupported channel: ${invoiceRequestChannel}` });
      return this.offers.handle(command);
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
    if (this.limits.maxSubscriptions > 0 && this.watching.size + added > this.limits.maxSubscriptions) {
      return this.send({
        event: 'error',
        error: `too many subscriptions: at most ${this.limits.maxSubscriptions} swaps per connection`,
      });
    }
    if (this.budget.max > 0 && this.budget.used + added > this.budget.max) {
      return this.send({ event: 'error', error: 'too many subscriptions on this server: try again later' });
    }
    this.send({ event: 'subscribe', channel: swapUpdateChannel, args });
    // Listen before reading; a change heard during the read replaces what the read returned (the engine
    // publishes only after committing, so it is at least as new). Ids watched already go through the same merge.
    const reading = new Map<string, SwapStatusBody | null>(ids.map((id) => [id, null]));
    this.reading = reading;
    for (const id of ids) {
      // a re-subscribed id moves to the end, as a new one would: the unsubscribe answer lists them in that order
      if (this.watching.delete(id)) this.watching.add(id);
      else {
        this.watching.add(id);
        this.feed.add(id, this.onChange);
      }
    }
    this.budget.used += added;
    let read: (SwapStatusBody | undefined)[];
    try {
      read = await Promise.all(ids.map((id) => this.read(id)));
    } finally {
      this.reading = undefined;
    }
    if (this.closed) return;
    const found: { id: string; status: SwapStatusBody }[] = [];
    ids.forEach((id, i) => {
      const status = reading.get(id) ?? read[i];
      if (status) found.push({ id, status });
    });
    if (found.length > 0) this.sendUpdate(found);
  }

  private unsubscribe(args: string[]): void {
    for (const id of args) {
      if (!this.watching.delete(id)) continue;
      this.feed.remove(id, this.onChange);
      this.budget.used--;
    }
    // the spec shows the reply with `op`, deployed servers send `event`: clients look for either
    const still = [...this.watching];
    this.send({ event: 'unsubscribe', op: 'unsubscribe', channel: swapUpdateChannel, args: still });
  }

  /** Unknown ids are simply left out of the snapshot; a failing read is logged and treated the same. */
  private async read(id: string): Promise<SwapStatusBody | undefined> {
    if (!isSwapId(id)) return undefined;
    try {
      return await this.swaps.status(id);
    } catch (error) {
      this.logger.error('status read failed', { swap: id, error: (error as Error).stack ?? String(error) });
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
      this.logger.debug('websocket client too slow, closing it', { buffered: this.socket.bufferedAmount });
      this.closeWith(policyViolation, 'too slow: the client does not read its messages');
    }
  }
}
