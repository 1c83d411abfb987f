// The onionmsg_tlv payload each hop of an onion message reads (BOLT 4): the hop's encrypted_recipient_data (4),
// and for the final hop the sender's reply path (2) and the offers protocol's message — invoice_request (64),
// invoice (66) or invoice_error (68). Other records are kept as unknown (odd ones a reader may ignore).
import { Bolt12Error, encodeTlvStream, parseTlvStream } from '../bolt12/tlv.ts';
import { readBlindedPaths, writeBlindedPaths, type BlindedPath } from '../bolt12/values.ts';
import { OnionError } from './crypto.ts';

export interface OnionMessagePayload {
  replyPath?: BlindedPath;
  encryptedRecipientData?: Uint8Array;
  invoiceRequest?: Uint8Array;
  invoice?: Uint8Array;
  invoiceError?: Uint8Array;
  unknown?: { type: bigint; value: Uint8Array }[];
}

const BYTES_FIELDS = [
  [4n, 'encryptedRecipientData'],
  [64n, 'invoiceRequest'],
  [66n, 'invoice'],
  [68n, 'invoiceError'],
] as const;

export function encodePayload(payload: OnionMessagePayload): Uint8Array {
  return encodeTlvStream([
    ...(payload.replyPath ? [{ type: 2n, value: writeBlindedPaths([payload.replyPath]) }] : []),
    ...BYTES_FIELDS.flatMap(([type, name]) => (payload[name] === undefined ? [] : [{ type, value: payload[name] }])),
    ...(payload.unknown ?? []),
  ]);
}

export function decodePayload(bytes: Uint8Array): OnionMessagePayload {
  try {
    const payload: OnionMessagePayload = {};
    for (const record of parseTlvStream(bytes)) {
      const known = BYTES_FIELDS.find(([type]) => type === record.type);
      if (known !== undefined) payload[known[1]] = record.value;
      else if (record.type === 2n) {
        const paths = readBlindedPaths(record.value, 'reply_path');
        if (paths.length !== 1) throw new OnionError('reply_path: more than one path');
        payload.replyPath = paths[0];
      } else (payload.unknown ??= []).push({ type: record.type, value: record.value });
    }
    return payload;
  } catch (error) {
    if (error instanceof Bolt12Error) throw new OnionError(`onion message payload: ${error.message}`);
    throw error;
  }
}
