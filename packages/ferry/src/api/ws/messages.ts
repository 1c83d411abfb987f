// Client messages of the v2 WebSocket, checked for shape. Anything malformed becomes a ProtocolError whose
// text the client receives as {"event": "error", "error": text}.

export const swapUpdateChannel = 'swap.update';
export const invoiceRequestChannel = 'invoice.request';
/** Ids per subscribe/unsubscribe message, as in the reference. */
export const maxArgsPerMessage = 100;
/** Longer strings cannot be swap ids; refusing them keeps per-connection memory bounded. */
export const maxIdLength = 64;

/** BOLT12 strings longer than this are refused before decoding (an offer with a few blinded paths fits easily). */
export const maxBolt12Length = 8192;
const maxErrorLength = 1024;

/** Messages of the `invoice.request` channel, and the answers to its requests. */
export type OfferCommand =
  | { op: 'subscribe'; channel: typeof invoiceRequestChannel; args: { offer: string; signature: string }[] }
  | { op: 'unsubscribe'; channel: typeof invoiceRequestChannel; args: string[] }
  | { op: 'invoice'; id: string; invoice: string }
  | { op: 'invoice.error'; id: string; error: string };

export type ClientCommand =
  | { op: 'ping' }
  | { op: 'subscribe' | 'unsubscribe'; channel: typeof swapUpdateChannel; args: string[] }
  | OfferCommand;

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
  const { op, channel, args, id } = message as Record<string, unknown>;
  if (op === undefined) throw new ProtocolError('undefined parameter: op');
  if (typeof op !== 'string') throw new ProtocolError('invalid parameter: op');
  switch (op) {
    case 'ping':
      return { op };
    case 'subscribe':
    case 'unsubscribe':
      if (parseChannel(channel) === invoiceRequestChannel) {
        return op === 'subscribe' ? { op, channel: invoiceRequestChannel, args: parseOfferSignatures(args) } : { op, channel: invoiceRequestChannel, args: parseOffers(args) };
      }
      return { op, channel: swapUpdateChannel, args: parseIds(args) };
    case 'invoice':
      return { op, id: parseString(id, 'id', maxIdLength), invoice: parseString((message as Record<string, unknown>).invoice, 'invoice', maxBolt12Length) };
    case 'invoice.error':
      return { op, id: parseString(id, 'id', maxIdLength), error: parseString((message as Record<string, unknown>).error, 'error', maxErrorLength) };
    default:
      throw new ProtocolError(`unknown operation: ${clip(op)}`);
  }
}

function parseChannel(channel: unknown): typeof swapUpdateChannel | typeof invoiceRequestChannel {
  if (channel === undefined) throw new ProtocolError('undefined parameter: channel');
  if (channel === swapUpdateChannel || channel === invoiceRequestChannel) return channel;
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

function parseString(value: unknown, name: string, maxLength: number): string {
  if (value === undefined) throw new ProtocolError(`undefined parameter: ${name}`);
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) throw new ProtocolError(`invalid parameter: ${name}`);
  return value;
}

function parseArgsArray(args: unknown, what: string): unknown[] {
  if (args === undefined) throw new ProtocolError('undefined parameter: args');
  if (!Array.isArray(args)) throw new ProtocolError(`invalid parameter: args (must be an array of ${what})`);
  if (args.length > maxArgsPerMessage) throw new ProtocolError(`too many args: ${args.length} (at most ${maxArgsPerMessage} per message)`);
  return args;
}

function parseOfferSignatures(args: unknown): { offer: string; signature: string }[] {
  return parseArgsArray(args, '{offer, signature} objects').map((arg) => {
    if (typeof arg !== 'object' || arg === null || Array.isArray(arg)) throw new ProtocolError(`invalid parameter: args (each must be {offer, signature}, got ${clip(arg)})`);
    const { offer, signature } = arg as Record<string, unknown>;
    return { offer: parseString(offer, 'offer', maxBolt12Length), signature: parseString(signature, 'signature', 256) };
  });
}

function parseOffers(args: unknown): string[] {
  return parseArgsArray(args, 'offers').map((offer) => parseString(offer, 'offer', maxBolt12Length));
}

export function isOfferCommand(command: ClientCommand): command is OfferCommand {
  return command.op === 'invoice' || command.op === 'invoice.error' || ('channel' in command && command.channel === invoiceRequestChannel);
}
