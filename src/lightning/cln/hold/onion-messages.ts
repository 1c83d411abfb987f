// The hold plugin's OnionMessages stream as an OnionMessageStream: the plugin sends each onion message CLN's
// onion_message_recv(_secret) hook hands it, and waits for {id, action} back (it continues by itself after 30 s).
// The stream is opened while someone listens; when it drops (plugin or node restart) it is opened again with
// backoff. A handler that throws counts as `continue`: the node must never lose a message to Ferry's mistake.
import type { ClientDuplexStream } from '@grpc/grpc-js';
import type { HeldOnionMessage, OnionHookAction, OnionMessageHandler, OnionMessageStream } from '../../onion-message-hook.ts';
import type { HoldGrpcClient } from './client.ts';
import type { OnionMessageProto, OnionMessageResponseProto } from './proto.ts';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;
const STABLE_MS = 10_000; // a stream that lived this long (or brought a message) resets the backoff

const optional = (buffer: Buffer | undefined): Uint8Array | undefined => (buffer === undefined ? undefined : new Uint8Array(buffer));

/** The plugin's message in the shape Ferry's responder reads. */
export function heldOnionMessage(message: OnionMessageProto): HeldOnionMessage {
  const path = message.reply_blindedpath;
  return {
    id: BigInt(message.id),
    pathSecret: optional(message.pathsecret),
    replyBlindedPath: path && {
      firstNodeId: optional(path.first_node_id),
      firstScid: path.first_scid,
      firstScidDir: path.first_scid_dir === undefined ? undefined : Number(path.first_scid_dir),
      firstPathKey: optional(path.first_path_key),
      hops: path.hops.map((hop) => ({ blindedNodeId: optional(hop.blinded_node_id), encryptedRecipientData: optional(hop.encrypted_recipient_data) })),
    },
    invoiceRequest: optional(message.invoice_request),
    invoice: optional(message.invoice),
    invoiceError: optional(message.invoice_error),
    unknownFields: message.unknown_fields.map((field) => ({ number: BigInt(field.number), value: new Uint8Array(field.value) })),
  };
}

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

const bytesOf = (value: Uint8Array | undefined): Buffer | undefined => (value === undefined ? undefined : Buffer.from(value));

/** The other way, as a node's plugin sends it (the devnet's CLN node). */
export function onionMessageProto(message: HeldOnionMessage): OnionMessageProto {
  const path = message.replyBlindedPath;
  return {
    id: message.id.toString(),
    pathsecret: bytesOf(message.pathSecret),
    reply_blindedpath: path && {
      first_node_id: bytesOf(path.firstNodeId),
      first_scid: path.firstScid,
      first_scid_dir: path.firstScidDir,
      first_path_key: bytesOf(path.firstPathKey),
      hops: path.hops.map((hop) => ({ blinded_node_id: bytesOf(hop.blindedNodeId), encrypted_recipient_data: bytesOf(hop.encryptedRecipientData) })),
    },
    invoice_request: bytesOf(message.invoiceRequest),
    invoice: bytesOf(message.invoice),
    invoice_error: bytesOf(message.invoiceError),
    unknown_fields: message.unknownFields.map((field) => ({ number: field.number.toString(), value: Buffer.from(field.value) })),
  };
}
