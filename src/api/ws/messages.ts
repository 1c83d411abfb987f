// Client messages of the v2 WebSocket, checked for shape. Anything malformed becomes a ProtocolError whose
// text the client receives as {"event": "error", "error": text}.

export const swapUpdateChannel = 'swap.update';
export const invoiceRequestChannel = 'invoice.request';
/** Ids per subscribe/unsubscribe message, as in the reference. */
export const maxArgsPerMessage = 100;
/** Longer strings cannot be swap ids; refusing them keeps per-connection memory bounded. */
export const maxIdLength = 64;

export type ClientCommand =
  | { op: 'ping' }
  | { op: 'subscribe' | 'unsubscribe'; channel: typeof swapUpdateChannel; args: string[] };

export class ProtocolError extends Error {}

/** Quotes client input in an error text without echoing kilobytes of it back. */
export function clip(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > maxIdLength ? `${text.slice(0, maxIdLength)}...` : text;
}

export function parseClientMessage(text: string): ClientCommand {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw new ProtocolError('could not parse message: invalid JSON');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new ProtocolError('could not parse message: not a JSON object');
  }
  const { op, channel, args } = message as Record<string, unknown>;
  if (op === undefined) throw new ProtocolError('undefined parameter: op');
  if (typeof op !== 'string') throw new ProtocolError('invalid parameter: op');
  switch (op) {
    case 'ping':
      return { op };
    case 'subscribe':
    case 'unsubscribe':
      return { op, channel: parseChannel(channel), args: parseIds(args) };
    case 'invoice':
    case 'invoice.error':
      throw new ProtocolError(`unsupported operation: ${op} (channel ${invoiceRequestChannel} is not supported)`);
    default:
      throw new ProtocolError(`unknown operation: ${clip(op)}`);
  }
}

function parseChannel(channel: unknown): typeof swapUpdateChannel {
  if (channel === undefined) throw new ProtocolError('undefined parameter: channel');
  if (channel === swapUpdateChannel) return channel;
  if (channel === invoiceRequestChannel) throw new ProtocolError(`unsupported channel: ${invoiceRequestChannel}`);
  if (typeof channel !== 'string') throw new ProtocolError('invalid parameter: channel');
  throw new ProtocolError(`unknown channel: ${clip(channel)}`);
}

function parseIds(args: unknown): string[] {
  if (args === undefined) throw new ProtocolError('undefined parameter: args');
  if (!Array.isArray(args)) throw new ProtocolError('invalid parameter: args (must be an array of swap ids)');
  if (args.length > maxArgsPerMessage) {
    throw new ProtocolError(`too many args: ${args.length} (at most ${maxArgsPerMessage} per message)`);
  }
  for (const id of args) {
    if (typeof id !== 'string') throw new ProtocolError(`invalid parameter: args (swap ids must be strings, got ${clip(id)})`);
    if (id.length > maxIdLength) throw new ProtocolError(`invalid parameter: args (not a swap id: ${clip(id)})`);
  }
  return args as string[];
}
