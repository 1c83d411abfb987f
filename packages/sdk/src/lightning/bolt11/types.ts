// A BOLT11 invoice as read from or written to its bech32 string. Byte fields are lower-case hex.

export type Bolt11Network = 'bc' | 'tb' | 'bcrt' | 'tbs';

export interface RouteHintHop {
  pubkey: string;
  shortChannelId: string; // 16 hex chars, as on the wire
  feeBaseMsat: number;
  feeProportionalMillionths: number;
  cltvExpiryDelta: number;
}

export interface FallbackAddress {
  version: number; // 0-16 witness version, 17 P2PKH, 18 P2SH
  program: string;
}

export interface Bolt11Invoice {
  paymentRequest: string;
  network: Bolt11Network;
  amountMsat: bigint | undefined;
  timestamp: number; // seconds since the epoch
  paymentHash: string;
  paymentSecret: string | undefined;
  description: string | undefined;
  descriptionHash: string | undefined;
  expiry: number; // seconds after timestamp; 3600 when the invoice leaves it out
  minFinalCltvExpiry: number; // 18 when the invoice leaves it out
  payeeNodeKey: string; // from the `n` field, or recovered from the signature
  featureBits: number[];
  routeHints: RouteHintHop[][];
  fallbackAddresses: FallbackAddress[];
  signature: string; // 64 bytes r || s
  recoveryId: number;
}

export interface Bolt11InvoiceFields {
  network: Bolt11Network;
  amountMsat?: bigint;
  timestamp: number;
  paymentHash: string;
  paymentSecret?: string;
  description?: string;
  descriptionHash?: string;
  expiry?: number;
  minFinalCltvExpiry?: number;
  featureBits?: number[];
  includeNodeKey?: boolean; // write the `n` field (otherwise readers recover the key from the signature)
  routeHints?: RouteHintHop[][];
}
