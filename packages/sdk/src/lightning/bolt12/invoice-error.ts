// BOLT #12 invoice_error: what the issuer (or its stand-in, Ferry) sends back instead of an invoice — an
// explanation (5, UTF-8), optionally the field it objects to (1) and a value it would take (3).
import { Bolt12Error, encodeTlvStream, parseTlvStream, readTruncated, writeTruncated } from './tlv.ts';
import { readUtf8 } from './values.ts';

export interface InvoiceError {
  error: string;
  erroneousField?: bigint;
  suggestedValue?: Uint8Array;
}

export function encodeInvoiceError(value: InvoiceError): Uint8Array {
  return encodeTlvStream([
    ...(value.erroneousField === undefined ? [] : [{ type: 1n, value: writeTruncated(value.erroneousField) }]),
    ...(value.suggestedValue === undefined ? [] : [{ type: 3n, value: value.suggestedValue }]),
    { type: 5n, value: new TextEncoder().encode(value.error) },
  ]);
}

/** Reads an invoice_error; one without an explanation reads as the empty text, as lightningd reports it. */
export function decodeInvoiceError(bytes: Uint8Array): InvoiceError {
  const out: InvoiceError = { error: '' };
  for (const record of parseTlvStream(bytes)) {
    if (record.type === 1n) out.erroneousField = readTruncated(record.value, 8, 'erroneous_field');
    else if (record.type === 3n) out.suggestedValue = record.value;
    else if (record.type === 5n) out.error = readUtf8(record.value, 'error');
    else if (record.type % 2n === 0n) throw new Bolt12Error(`invoice_error: unknown even field ${record.type}`);
  }
  return out;
}
