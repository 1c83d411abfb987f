// v1 server-sent events: GET /streamswapstatus?id=<swap id>. The first event is the current status, then one
// event per change; comment lines keep proxies from closing an idle stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SwapService, SwapStatusBody } from '@ferry/sdk/protocol/index.js';
import { watchWithSnapshot, type StatusFeed } from '../../events/index.ts';
import type { Logger } from '../../log/index.ts';
import { HttpError, badRequest, notFound } from '../http/errors.ts';
import { sendJson } from '../http/server.ts';
import { requireSwapId, swapNotFound } from '../http/validate.ts';
import { engineCall } from '../v2/swap-errors.ts';

export const streamPath = '/streamswapstatus';

export interface StatusStreamOptions {
  keepAliveMs: number;
  /** A client that stops reading is dropped once this much output is queued for it. */
  maxBufferedBytes: number;
}

export const defaultStreamOptions: StatusStreamOptions = { keepAliveMs: 15_000, maxBufferedBytes: 1 << 20 };

export class StatusStreams {
  private readonly open = new Set<ServerResponse>();

  constructor(
    private readonly swaps: SwapService,
    private readonly feed: StatusFeed,
    private readonly logger: Logger,
    private readonly options: StatusStreamOptions = defaultStreamOptions,
  ) {}

  /** Number of streams currently open. */
  get size(): number {
    return this.open.size;
  }

  async handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    try {
      if (request.method !== 'GET') throw new HttpError(405, `method not allowed: ${request.method} ${streamPath}`);
      const given = url.searchParams.get('id');
      if (given === null || given === '') throw badRequest('undefined parameter: id');
      await this.stream(request, response, requireSwapId(given));
    } catch (error) {
      if (response.headersSent) {
        response.destroy();
      } else if (error instanceof HttpError) {
        sendJson(response, error.status, { error: error.message, ...error.extra });
      } else {
        this.logger.error('status stream failed', { error: (error as Error).stack ?? String(error) });
        sendJson(response, 500, { error: 'internal error' });
      }
    }
  }

  /** Ends every stream, for shutdown. */
  close(): void {
    for (const response of this.open) response.end();
  }

  private async stream(request: IncomingMessage, response: ServerResponse, id: string): Promise<void> {
    const send = (status: SwapStatusBody) => {
      response.write(`data: ${JSON.stringify(status)}\n\n`);
      if (response.writableLength > this.options.maxBufferedBytes) response.destroy();
    };
    const stops = await watchWithSnapshot({
      feed: this.feed,
      ids: [id],
      read: (swapId) => engineCall(() => this.swaps.status(swapId)),
      onSnapshot: (found) => {
        if (found.length === 0) throw notFound(swapNotFound(id));
        if (response.destroyed || request.socket.destroyed) return;
        response.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
          'x-accel-buffering': 'no', // nginx would otherwise buffer the stream
        });
        send(found[0].status);
      },
      onChange: (_, status) => send(status),
    });

    const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), this.options.keepAliveMs);
    const cleanUp = () => {
      clearInterval(keepAlive);
      for (const stop of stops.values()) stop();
      this.open.delete(response);
    };
    // the client may have gone while we read the status: 'close' would not fire again
    if (response.destroyed || request.socket.destroyed) return cleanUp();
    this.open.add(response);
    response.on('close', cleanUp);
  }
}
