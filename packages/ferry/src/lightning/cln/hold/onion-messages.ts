// The hold plugin's OnionMessages stream as an OnionMessageStream: the plugin sends each onion message CLN's
// onion_message_recv(_secret) hook hands it, and waits for {id, action} back (it continues by itself after 30 s).
// The stream is opened while someone listens; when it drops (plugin or node restart) it is opened again with
// backoff. A handler that throws counts as `continue`: the node must never lose a message to Ferry's mistake.
import type { ClientDuplexStream } from '@grpc/grpc-js';
import type { OnionHookAction, OnionMessageHandler, OnionMessageStream } from '@ferry/sdk/lightning/onion-message-hook.js';
import { heldOnionMessage, type OnionMessageProto, type OnionMessageResponseProto } from '@ferry/sdk/lightning/hold/messages.js';
import type { HoldGrpcClient } from './client.ts';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;
const STABLE_MS = 10_000; // a stream that lived this long (or brought a message) resets the backoff

type Duplex = ClientDuplexStream<OnionMessageResponseProto, OnionMessageProto>;

export class HoldOnionMessages implements OnionMessageStream {
  private readonly handlers = new Set<OnionMessageHandler>();
  private stream: Duplex | undefined;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: HoldGrpcClient,
    private readonly onError: (error: Error) => void = () => {},
  ) {}

  onMessage(handler: OnionMessageHandler): () => void {
    this.handlers.add(handler);
    if (this.stream === undefined && this.retryTimer === undefined) this.open();
    return () => {
      this.handlers.delete(handler);
      if (this.handlers.size === 0) this.stop();
    };
  }

  /** Ends the stream and any reconnection. */
  stop(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const stream = this.stream;
    this.stream = undefined;
    stream?.cancel();
  }

  private open(): void {
    this.retryTimer = undefined;
    const stream = (this.client.raw as unknown as { OnionMessages(): Duplex }).OnionMessages();
    this.stream = stream;
    const openedAt = Date.now();
    stream.on('data', (message: OnionMessageProto) => {
      this.retryMs = FIRST_RETRY_MS; // the stream works
      void this.answer(stream, message);
    });
    const dropped = (error?: Error) => {
      if (this.stream !== stream) return; // stopped, or already replaced
      this.stream = undefined;
      if (error !== undefined) this.onError(error);
      if (Date.now() - openedAt >= STABLE_MS) this.retryMs = FIRST_RETRY_MS;
      this.retryTimer = setTimeout(() => this.open(), this.retryMs);
      this.retryTimer.unref();
      this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    };
    stream.on('error', (error: Error) => dropped(error));
    stream.on('end', () => dropped());
  }

  private async answer(stream: Duplex, message: OnionMessageProto): Promise<void> {
    let action: OnionHookAction = 'continue';
    try {
      const held = heldOnionMessage(message);
      for (const handler of [...this.handlers]) {
        if ((await handler(held)) === 'resolve') {
          action = 'resolve';
          break;
        }
      }
    } catch (error) {
      this.onError(error as Error);
    }
    if (this.stream !== stream) return; // the plugin has given up on this stream's messages
    stream.write({ id: message.id, action: action === 'resolve' ? 'Resolve' : 'Continue' });
  }
}
