// BOLT11 invoices: reading, writing and signing on @scure/base and @noble/curves, in Ferry's own invoice shape.
export { decodeBolt11, decodeOwnBolt11, invoiceExpiresAt } from './decode.ts';
export { encodeBolt11, DEFAULT_FEATURE_BITS, type Bolt11Signer } from './encode.ts';
export type { Bolt11Invoice, Bolt11InvoiceFields, Bolt11Network, RouteHintHop, FallbackAddress } from './types.ts';
